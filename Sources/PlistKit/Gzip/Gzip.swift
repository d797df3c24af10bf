internal import CZlib

/// Transparent gzip input, bounded so that a decompression bomb is an error rather than an out-of-memory kill.
enum Gzip {
    static func isGzip(_ b: UnsafeRawBufferPointer) -> Bool {
        b.count >= 3 && b[0] == 0x1F && b[1] == 0x8B && b[2] == 0x08
    }

    /// Inflates a gzip stream (concatenated members included), failing once the output would exceed `limit`.
    static func inflate(_ input: UnsafeRawBufferPointer, limit: Int) throws -> [UInt8] {
        var stream = z_stream()
        // 16 + MAX_WBITS: gzip wrapper only.
        guard inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw PlistError(.io, "gzip: cannot initialise zlib")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        output.reserveCapacity(min(limit, max(input.count * 4, 4096)))
        let chunkSize = 1 << 16
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        guard let base = input.baseAddress else { throw PlistError(.truncated, "gzip: empty input") }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        stream.avail_in = UInt32(clamping: input.count)
        var consumedTotal = 0
        while true {
            let status: Int32 = chunk.withUnsafeMutableBufferPointer { buf in
                stream.next_out = buf.baseAddress
                stream.avail_out = UInt32(chunkSize)
                return CZlib.inflate(&stream, Z_NO_FLUSH)
            }
            let produced = chunkSize - Int(stream.avail_out)
            if output.count + produced > limit {
                throw PlistError(.sizeLimit, "gzip: decompressed size exceeds the limit of \(limit) bytes")
            }
            output.append(contentsOf: chunk[0..<produced])
            switch status {
            case Z_STREAM_END:
                consumedTotal = input.count - Int(stream.avail_in)
                // Another gzip member may follow (as `gzip -c a b` writes); padding zeros are ignored.
                let rest = UnsafeRawBufferPointer(rebasing: input[consumedTotal...])
                if rest.count >= 3, isGzip(rest) {
                    guard inflateReset(&stream) == Z_OK else { throw PlistError(.io, "gzip: zlib reset failed") }
                    continue
                }
                if rest.contains(where: { $0 != 0 }) {
                    throw PlistError(.syntax, "gzip: trailing garbage after the compressed stream", offset: consumedTotal)
                }
                return output
            case Z_OK:
                if produced == 0 && stream.avail_in == 0 {
                    throw PlistError(.truncated, "gzip: compressed stream is truncated", offset: input.count)
                }
            case Z_BUF_ERROR:
                if stream.avail_in == 0 {
                    throw PlistError(.truncated, "gzip: compressed stream is truncated", offset: input.count)
                }
            default:
                let msg = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw PlistError(.syntax, "gzip: corrupt compressed data (\(msg))", offset: input.count - Int(stream.avail_in))
            }
        }
    }
}

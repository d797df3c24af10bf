// libFuzzer differential harness, the streaming path against the tree path: for any input, `PropertyList.convert`
// to each text format (for a third of inputs with an event log and entry bounds small enough to spill them to
// files) gives the bytes `write(read(input))` gives, or the same error; and for binary input that
// reads (and whose offset table is whole), a `BinaryPlistDocument` answers every key path of the tree (up to a
// bound) with the tree's value, and `PlistDecoder` decodes the tree's entries from it.
import PlistKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStream(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    let options = FuzzCheck.options
    let tree: PlistValue?
    do {
        tree = try PropertyList.read(bytes, options: options).value
    } catch {
        tree = nil
    }
    for format in [PlistFormat.xml, .json, .openStep, .gnustep, .strings] {
        var expected: Result<[UInt8], PlistError>
        do {
            guard let tree else { throw try readError(bytes, options) }
            expected = .success(try PropertyList.writeBytes(tree, format: format))
        } catch let error as PlistError {
            expected = .failure(error)
        } catch {
            FuzzCheck.fail("non-PlistError from the tree path: \(error)")
        }
        var streamed: [UInt8] = []
        let got: Result<[UInt8], PlistError>
        do {
            if size % 3 == 0 {
                // Small bounds: the event log's file and the sorted runs on disk, on small inputs.
                _ = try PropertyList.convert(bytes, to: format, readOptions: options, eventLogMemory: 48,
                                             entrySpillMemory: 160) { streamed.append(contentsOf: $0) }
            } else {
                _ = try PropertyList.convert(bytes, to: format, readOptions: options) { streamed.append(contentsOf: $0) }
            }
            got = .success(streamed)
        } catch let error as PlistError {
            got = .failure(error)
        } catch {
            FuzzCheck.fail("non-PlistError from the stream: \(error)")
        }
        switch (expected, got) {
        case (.success(let a), .success(let b)) where a == b: continue
        case (.failure(let a), .failure(let b)) where a == b: continue
        default: FuzzCheck.fail("\(format.displayName): streamed \(describe(got)), tree \(describe(expected))")
        }
    }
    if let tree, bytes.count >= 8, PlistFormat.detection(of: bytes) == .binary {
        let document: BinaryPlistDocument
        do {
            document = try BinaryPlistDocument(Array(bytes), options: options)
        } catch let error as PlistError where error.kind == .invalidReference {
            // Documented (README, plutil difference 12): the document checks every offset-table entry at opening,
            // the tree only those of the objects it reaches.
            return 0
        } catch {
            FuzzCheck.fail("the tree reads, the document does not open: \(error)")
        }
        var budget = 200
        lookUp(tree, at: [], in: document, budget: &budget)
        decodeThroughContainers(tree, from: document)
    } else if bytes.count >= 8, PlistFormat.detection(of: bytes) == .binary,
              let document = try? BinaryPlistDocument(Array(bytes), options: options) {
        // A document the tree refuses: decoding through it may fail, never crash or hang.
        _ = try? PlistDecoder().decode([String: PlistValue].self, from: document)
        _ = try? PlistDecoder().decode([PlistValue].self, from: document)
    }
    return 0
}

/// `PlistDecoder` on the document, through its keyed or unkeyed container (each value materialised where it lies),
/// gives the tree's entries.
private func decodeThroughContainers(_ tree: PlistValue, from document: BinaryPlistDocument) {
    do {
        switch tree {
        case .dictionary(let d):
            // Keys equal under Swift's `==` (canonically equivalent) are one key of a Swift dictionary.
            guard Set(d.keys).count == d.count else { return }
            let decoded = try PlistDecoder().decode([String: PlistValue].self, from: document)
            if decoded.count != d.count || d.contains(where: { decoded[$0.key] != $0.value }) {
                FuzzCheck.fail("decoding [String: PlistValue] from the document differs from the tree")
            }
        case .array(let a):
            if try PlistDecoder().decode([PlistValue].self, from: document) != a {
                FuzzCheck.fail("decoding [PlistValue] from the document differs from the tree")
            }
        default:
            if try PlistDecoder().decode(PlistValue.self, from: document) != tree {
                FuzzCheck.fail("decoding PlistValue from the document differs from the tree")
            }
        }
    } catch {
        FuzzCheck.fail("decoding from the document fails where the tree reads: \(error)")
    }
}

/// The error `read` throws (the tree path's first failure).
private func readError(_ bytes: UnsafeRawBufferPointer, _ options: PlistReadOptions) throws -> Error {
    do {
        _ = try PropertyList.read(bytes, options: options)
    } catch {
        return error
    }
    FuzzCheck.fail("read failed once and succeeded the second time")
}

private func describe(_ r: Result<[UInt8], PlistError>) -> String {
    switch r {
    case .success(let b): return "\(b.count) bytes"
    case .failure(let e): return "error \(e)"
    }
}

/// Every key path under `value` (at most `budget` of them), looked up in the document, gives the tree's value.
private func lookUp(_ value: PlistValue, at path: [String], in document: BinaryPlistDocument, budget: inout Int) {
    guard budget > 0 else { return }
    budget -= 1
    let keyPath = KeyPath(components: path)
    do {
        let found = try document.value(at: keyPath)
        if found != value { FuzzCheck.fail("the document's value at \(keyPath) differs from the tree's") }
    } catch {
        FuzzCheck.fail("the document fails at \(keyPath), where the tree holds a value: \(error)")
    }
    switch value {
    case .array(let a):
        for (i, e) in a.enumerated() { lookUp(e, at: path + [String(i)], in: document, budget: &budget) }
    case .dictionary(let d):
        for (k, e) in d { lookUp(e, at: path + [k], in: document, budget: &budget) }
    default:
        break
    }
}

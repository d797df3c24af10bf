/// The capabilities this process holds (capabilities(7)), as `/proc/self/status` lists them.
enum ProcessCapabilities {
    /// Whether the effective set holds `CAP_DAC_READ_SEARCH` (bit 2), which `open_by_handle_at(2)` needs.
    static func holdsDacReadSearch() -> Bool {
        guard case .success(let status) = Sys.readFile("/proc/self/status", limit: 1 << 16) else { return false }
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("CapEff:") {
            let hex = line.dropFirst("CapEff:".count).filter { $0 != " " && $0 != "\t" }
            if let mask = UInt64(hex, radix: 16) { return mask & (1 << 2) != 0 }
        }
        return false
    }
}

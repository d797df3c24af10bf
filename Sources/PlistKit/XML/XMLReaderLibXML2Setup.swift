@preconcurrency internal import CLibXML2

/// One-time, thread-safe libxml2 initialisation for the XML reader.
enum LibXML2Setup {
    /// How many nested elements libxml2 accepts without `XML_PARSE_HUGE`.
    ///
    /// A plist of depth 512 (Core Foundation's limit and our default) is 513 XML elements plus its innermost scalar,
    /// over libxml2's default of 256. libxml2 before 2.12 reads that limit from the process-wide
    /// `xmlParserMaxDepth`, so it is raised once, here, to 1024 (never lowered), keeping `XML_PARSE_HUGE` and its
    /// lifted size limits off for ordinary caps. Later libxml2 versions hard-code 256, and deeper caps then need
    /// `XML_PARSE_HUGE`; our own depth check stops the parse at `maxDepth` in either case.
    static let elementDepthWithoutHuge: Int = initialize()

    /// Initialises libxml2 (once per process; Swift runs a static initialiser exactly once, under a lock).
    @inline(__always)
    static func ensureInitialized() { _ = elementDepthWithoutHuge }

    private static func initialize() -> Int {
        xmlInitParser()
        // The version of the library actually loaded, not the headers'.
        let loaded = __xmlParserVersion()?.pointee.flatMap { Int(String(cString: $0)) } ?? 0
        if loaded < 21200 {
            if xmlParserMaxDepth < 1024 { xmlParserMaxDepth = 1024 }
            return Int(xmlParserMaxDepth)
        }
        return 256
    }
}

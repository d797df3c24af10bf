/// A writer that can stream: its output goes to an `OutputDrain` a buffer at a time.
protocol StreamingWriterSink: PlistEventSink {
    /// Ends the document and hands what is left to the drain.
    mutating func finishStream()
    /// Frees the output buffer of a conversion that failed.
    mutating func abandonStream()
}

extension PropertyList {
    /// Converts a document to `format` as it is read, without building its tree: the reader's events go straight to
    /// the writer, and the output goes to `output` a buffer (about 1 MiB) at a time. The bytes are those
    /// `write(read(input), format:)` gives, and so are the errors: a value the format cannot hold is reported only
    /// once the whole input has been read.
    ///
    /// Keys in a writer's order need a dictionary's keys before its values: binary input is read keys first (the
    /// offset table gives them); text input keeps each dictionary's events in an `EventLog`, spilled to a temporary
    /// file past a bound, until the dictionary ends (`KeyOrderingSink`). Binary output still needs every value to
    /// unique them, and goes through the tree.
    /// - Returns: the format of the input.
    @discardableResult
    public static func convert(
        _ input: UnsafeRawBufferPointer, to format: PlistFormat, options: PlistWriteOptions = PlistWriteOptions(),
        readOptions: PlistReadOptions = PlistReadOptions(), output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> PlistFormat {
        try convert(input, to: format, options: options, readOptions: readOptions, eventLogMemory: eventLogMemory,
                    entrySpillMemory: entrySpillMemory, output: output)
    }

    /// `convert` of a file's bytes: the same output and errors. When the input is a file mapping (a regular file),
    /// a text reader gives back the pages it has passed as it goes (`InputPages`), so resident memory stays bounded
    /// however large the file (XML input parsed as it is, that is UTF-8 needing no repair; other input is read
    /// as `convert` of its bytes reads it).
    @discardableResult
    public static func convert(
        _ input: MappedInput, to format: PlistFormat, options: PlistWriteOptions = PlistWriteOptions(),
        readOptions: PlistReadOptions = PlistReadOptions(), output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> PlistFormat {
        try reportingWriteFailures {
            try convert(input, to: format, options: options, readOptions: readOptions, eventLogMemory: eventLogMemory,
                        sharingAllowance: sharingAllowance, output: output)
        }
    }

    /// `convert` of bytes with given bounds for the event log's memory and a large dictionary's entries (the public
    /// `convert` passes the standard ones); small bounds make a small document use the log's file, its windows and
    /// the sorted runs on disk: for the fuzz harness, which compares it with the tree path as it does the public one.
    @discardableResult
    package static func convert(
        _ input: UnsafeRawBufferPointer, to format: PlistFormat, options: PlistWriteOptions = PlistWriteOptions(),
        readOptions: PlistReadOptions, eventLogMemory: Int, entrySpillMemory: Int, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> PlistFormat {
        try reportingWriteFailures {
            try convert(input, to: format, options: options, readOptions: readOptions, eventLogMemory: eventLogMemory,
                        sharingAllowance: sharingAllowance, entrySpillMemory: entrySpillMemory, output: output)
        }
    }

    /// The public `convert`s: a writer's error (`StreamWriteFailure`, which `plutil` words apart) as the plain
    /// `PlistError` it carries.
    private static func reportingWriteFailures(_ body: () throws -> PlistFormat) throws -> PlistFormat {
        do {
            return try body()
        } catch let failure as StreamWriteFailure {
            throw failure.error
        }
    }

    /// `convert` of a `MappedInput` with the bounds of the internal `convert`; the writer's errors come as
    /// `StreamWriteFailure`.
    static func convert(
        _ input: MappedInput, to format: PlistFormat, options: PlistWriteOptions, readOptions: PlistReadOptions,
        eventLogMemory: Int, sharingAllowance: Int, entrySpillMemory: Int = PropertyList.entrySpillMemory,
        output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> PlistFormat {
        let pages = input.releasablePages()
        return try input.withUnsafeBytes {
            try convert($0, to: format, options: options, readOptions: readOptions, eventLogMemory: eventLogMemory,
                        sharingAllowance: sharingAllowance, entrySpillMemory: entrySpillMemory, pages: pages, output: output)
        }
    }

    /// How many bytes of decoding beyond the tree reader's budget a binary document's shared subtrees may expand to
    /// when streamed (a writer sends a shared subtree each time it is referred to; a tree holds it once).
    static let sharingAllowance = 256 << 20

    /// How much of a dictionary's events an `EventLog` holds in memory before it spills to a temporary file.
    static let eventLogMemory = 8 << 20

    /// How much memory a dictionary's entries (key and value position) may take while they are put in key order,
    /// before they are sorted in runs on disk and merged (`EntryRuns`).
    static let entrySpillMemory = 4 << 20

    /// `convert`, with the memory an `EventLog` may hold before it spills to a file, the memory a dictionary's
    /// entries may take before they are ordered on disk, how many runs of them are merged at once, where the
    /// temporary files go, and the sharing allowance (tests make them small); `pages`, the input's if it is a file
    /// mapping. The writer's errors come as `StreamWriteFailure`.
    static func convert(
        _ input: UnsafeRawBufferPointer, to format: PlistFormat, options: PlistWriteOptions, readOptions: PlistReadOptions,
        eventLogMemory: Int, sharingAllowance: Int, entrySpillMemory: Int = PropertyList.entrySpillMemory,
        entryFanIn: Int = 64, temporaryDirectory: String? = nil, pages: InputPages? = nil,
        output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> PlistFormat {
        let spill = Spill(eventLogMemory: eventLogMemory, entryMemory: entrySpillMemory, entryFanIn: entryFanIn,
                          directory: temporaryDirectory, pages: pages)
        return try checkedInput(input, options: readOptions) { input, detected in
            try convert(input, detected: detected, to: format, options: options, readOptions: readOptions,
                        spill: spill, sharingAllowance: sharingAllowance, output: output)
        }
    }

    /// The bounds of a conversion's memory and where what exceeds them goes.
    struct Spill {
        var eventLogMemory: Int
        var entryMemory: Int
        var entryFanIn: Int
        var directory: String?
        var pages: InputPages?
    }

    /// `convert` of checked input (`checkedInput`) whose format is `detected`.
    private static func convert(
        _ input: UnsafeRawBufferPointer, detected: PlistFormat, to format: PlistFormat, options: PlistWriteOptions,
        readOptions: PlistReadOptions, spill: Spill, sharingAllowance: Int, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> PlistFormat {
        if format == .binary {
            let (value, inputFormat) = try read(input, options: readOptions)
            let bytes: [UInt8]
            do {
                bytes = try writeBytes(value, format: .binary, options: options)
            } catch let error as PlistError {
                throw StreamWriteFailure(error: error)
            }
            try bytes.withUnsafeBytes(output)
            return inputFormat
        }
        return try withoutActuallyEscaping(output) { output in
            let drain = OutputDrain(output)
            let inputFormat: PlistFormat
            switch format {
            case .xml:
                var writer = XMLWriterSink(maxDepth: options.maxDepth, drain: drain)
                inputFormat = try stream(input, detected: detected, spill: spill, sharingAllowance: sharingAllowance, sortedBy: UTF16KeyOrder.self, if: options.sortKeys, readOptions: readOptions, into: &writer)
            case .json:
                var writer = JSONWriterSink(pretty: options.prettyPrinted, maxDepth: options.maxDepth, drain: drain)
                inputFormat = try stream(input, detected: detected, spill: spill, sharingAllowance: sharingAllowance, sortedBy: JSONKeyOrder.self, if: options.sortKeys, readOptions: readOptions, into: &writer)
            case .openStep, .gnustep:
                var writer = OpenStepWriterSink(gnustep: format == .gnustep, options: options,
                                                out: OpenStepTextOutput(streamingTo: drain))
                do {
                    inputFormat = try stream(input, detected: detected, spill: spill, sharingAllowance: sharingAllowance, sortedBy: UTF16KeyOrder.self, if: options.sortKeys, readOptions: readOptions, into: &writer)
                } catch var failure as StreamWriteFailure {
                    // The writer's own errors name no format, as in the tree path.
                    if failure.error.format == nil { failure.error.format = format }
                    throw failure
                }
            case .strings:
                var writer = StringsWriterSink(lossy: options.lossy, drain: drain)
                do {
                    inputFormat = try stream(input, detected: detected, spill: spill, sharingAllowance: sharingAllowance, sortedBy: UTF16KeyOrder.self, if: options.sortKeys, readOptions: readOptions, into: &writer)
                } catch var failure as StreamWriteFailure {
                    if failure.error.format == nil { failure.error.format = .strings }
                    throw failure
                }
            case .binary:
                preconditionFailure("binary output goes through the tree, above")
            }
            if let error = drain.error { throw error }
            return inputFormat
        }
    }

    /// Streams `input` into `writer` with dictionaries in `Order` (when `sorted`) or in document order, and finishes
    /// the output.
    static func stream<Writer: StreamingWriterSink, Order: KeyOrdering>(
        _ input: UnsafeRawBufferPointer, detected: PlistFormat, spill: Spill, sharingAllowance: Int,
        sortedBy order: Order.Type, if sorted: Bool,
        readOptions: PlistReadOptions, into writer: inout Writer
    ) throws -> PlistFormat {
        let log = EventLog(memoryLimit: spill.eventLogMemory, directory: spill.directory)
        let inputFormat: PlistFormat
        do {
            inputFormat = sorted
                ? try stream(input, detected: detected, order: Order.self, readOptions: readOptions, log: log, spill: spill, sharingAllowance: sharingAllowance, into: &writer)
                : try stream(input, detected: detected, order: InsertionKeyOrder.self, readOptions: readOptions, log: log, spill: spill, sharingAllowance: sharingAllowance, into: &writer)
        } catch {
            writer.abandonStream()
            throw error
        }
        writer.finishStream()
        return inputFormat
    }

    private static func stream<Writer: StreamingWriterSink, Order: KeyOrdering>(
        _ input: UnsafeRawBufferPointer, detected: PlistFormat, order: Order.Type, readOptions: PlistReadOptions, log: EventLog,
        spill: Spill, sharingAllowance: Int, into writer: inout Writer
    ) throws -> PlistFormat {
        var deferring = DeferredWriteErrorSink(writer)
        defer { writer = deferring.writer }
        let limits = ReadLimits(readOptions, format: detected)
        var inputFormat = detected
        if detected == .binary {
            // Keys come first from the offset table: the source sends each dictionary in the writer's order.
            let trailer = try BinaryTrailer(input, options: readOptions)
            var limited = LimitingSink(deferring, limits: limits)
            defer { deferring = limited.inner }
            // A writer cannot stand in for a shared subtree, so it is sent again: the stream's budget allows the
            // output that sharing legitimately expands to, and stops a hostile file's exponential one.
            let treeBudget = BinaryEventSource<LimitingSink<DeferredWriteErrorSink<Writer>>, Order>.treeBudget(trailer)
            let streamBudget = treeBudget + sharingAllowance
            do {
                let outcome = try BinaryEventSource<_, Order>.run(input, trailer: trailer, options: readOptions, byOffset: false,
                                                                  budget: streamBudget, spill: spill, into: &limited)
                // The tree remembers shared subtrees and spends no more than the stream: within its budget the
                // tree reader accepts the file too. Past it, it decides (aliases and overlaps), as `read` would; and
                // it decides when a merged repeated key left a value undecoded.
                if streamBudget - outcome.budgetLeft > treeBudget || outcome.skippedMergedValues {
                    _ = try BinaryReader.read(input, trailer: trailer, options: readOptions)
                }
            } catch let error as PlistError {
                // The stream spends more budget than the tree: the tree reader may have failed earlier, elsewhere.
                _ = try BinaryReader.read(input, trailer: trailer, options: readOptions)
                throw error
            } catch let exhausted as BinaryBudgetExhausted {
                _ = try BinaryReader.read(input, trailer: trailer, options: readOptions)
                throw PlistError(.sizeLimit, "shared subtrees would expand to more than \(sharingAllowance) bytes of reading",
                                 format: .binary, offset: exhausted.offset)
            }
        } else {
            let ordering = KeyOrderingSink<DeferredWriteErrorSink<Writer>, Order>(
                deferring, readOptions: readOptions, format: detected, log: log, entryMemory: spill.entryMemory,
                entryFanIn: spill.entryFanIn, directory: spill.directory)
            var limited = LimitingSink(ordering, limits: limits)
            defer { deferring = limited.inner.downstream }
            inputFormat = try parseText(input, detected: detected, options: readOptions, pages: spill.pages, into: &limited)
        }
        if let error = deferring.deferred { throw StreamWriteFailure(error: error) }
        return inputFormat
    }
}

/// A conversion's error that came from the writer (the value has no form in the output format), not from the input:
/// `plutil` words the two differently.
struct StreamWriteFailure: Error {
    var error: PlistError
}

import PlistKit

extension DefaultsCommand.Runner {
    /// `read-archived <domain> <key>` (an extension): the value at `key` is an `NSKeyedArchiver` archive (data, as
    /// `UserDefaults` stores an archived `NSColor` or `NSURL`, or an archive stored as a dictionary); it is printed
    /// decoded (`KeyedArchiveTool.unarchivedValue`: Foundation's classes as ordinary values, other objects as
    /// dictionaries with `"$class"`), as `read <domain> <key>` prints values. Messages are `read`'s.
    func readArchived(_ operands: [String]) -> Int32 {
        guard operands.count == 2 else { return usageError() }
        guard let t = target(operands[0]) else { return fail("Domain \(operands[0]) does not exist") }
        let key = operands[1]
        guard let value = t.file.snapshot(force: true)[key] else {
            return fail("The domain/default pair of (\(t.name), \(key)) does not exist")
        }
        let decoded: PlistValue
        do {
            decoded = try KeyedArchiveTool.unarchivedValue(value)
        } catch {
            return fail("The value of (\(t.name), \(key)) is not a keyed archive: \(error)")
        }
        io.out(DescriptionFormatter.describeTopLevel(decoded) + "\n")
        return 0
    }
}

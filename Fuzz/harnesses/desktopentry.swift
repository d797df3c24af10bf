// libFuzzer harness for the desktop-entry reader behind `defaults -app` (desktop files are anyone's to write in
// ~/.local/share/applications). Properties: reading never traps; what it reads — the `[Desktop Entry]` group's
// Name, Type and Hidden — written back with the specification's escapes reads back the same.
@testable import Preferences

enum FuzzDesktopEntry {
    /// `value` escaped as the specification says, so a reader that unescapes gives back `value` itself.
    static func escaped(_ value: String) -> String {
        // Scalar by scalar: as `Character`s, a newline or backslash followed by a combining mark is one unit.
        var out = String.UnicodeScalarView()
        for (i, c) in value.unicodeScalars.enumerated() {
            switch c {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case " " where i == 0: out.append(contentsOf: "\\s".unicodeScalars)
            default: out.append(c)
            }
        }
        return String(out)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDesktopEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: size))
    guard let entry = DesktopEntry.parse(bytes) else { return 0 }
    var text = "[Desktop Entry]\n"
    if let name = entry.name { text += "Name=" + FuzzDesktopEntry.escaped(name) + "\n" }
    if let type = entry.type { text += "Type=" + FuzzDesktopEntry.escaped(type) + "\n" }
    if entry.hidden { text += "Hidden=true\n" }
    guard let again = DesktopEntry.parse(Array(text.utf8)) else { FuzzCheck.fail("the rewritten entry has no group: \(text.debugDescription)") }
    if again != entry { FuzzCheck.fail("read \(entry), rewrote \(text.debugDescription), read back \(again)") }
    return 0
}

// libFuzzer harness for the desktop-entry reader behind `defaults -app` (desktop files are anyone's to write in
// ~/.local/share/applications). Properties: reading never traps; what it reads — the `[Desktop Entry]` group's
// Name, Type and Hidden — written back with the specification's escapes reads back the same.
@testable import Preferences

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDesktopEntry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: size))
    guard let entry = DesktopEntry.parse(bytes) else { return 0 }
    var text = "[Desktop Entry]\n"
    if let name = entry.name { text += "Name=" + DesktopEntry.escape(name) + "\n" }
    if let type = entry.type { text += "Type=" + DesktopEntry.escape(type) + "\n" }
    if entry.hidden { text += "Hidden=true\n" }
    guard let again = DesktopEntry.parse(Array(text.utf8)) else { FuzzCheck.fail("the rewritten entry has no group: \(text.debugDescription)") }
    if again != entry { FuzzCheck.fail("read \(entry), rewrote \(text.debugDescription), read back \(again)") }
    return 0
}

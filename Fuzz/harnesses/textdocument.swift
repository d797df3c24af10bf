// libFuzzer harness: the preserving text document (`PlistTextDocument`) against the plain reader. Whatever the
// plain reader accepts as OpenStep, GNUstep, .strings or XML text, the document reads to the same value and writes
// back to the same bytes; whatever it refuses, the document refuses with the same error; and an edit chosen from
// the input either reads back to the tree edit or throws a PlistError with the text unchanged.
import PlistKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTextDocument(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = [UInt8](UnsafeBufferPointer(start: data, count: size))
    let options = FuzzCheck.options
    let plain: (value: PlistValue, format: PlistFormat)
    do {
        plain = try PropertyList.read(bytes, options: options)
    } catch let error as PlistError {
        guard ![.binary, .json].contains(PlistFormat.detection(of: UnsafeRawBufferPointer(start: data, count: size)).format),
              size > 0, !(size >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B) else { return 0 }
        do {
            _ = try PlistTextDocument(bytes, options: options)
            FuzzCheck.fail("the document accepted what the plain reader refused: \(error)")
        } catch let e as PlistError {
            if e != error { FuzzCheck.fail("different errors: plain \(error), document \(e)") }
        } catch {
            FuzzCheck.fail("non-PlistError thrown: \(error)")
        }
        return 0
    } catch {
        FuzzCheck.fail("non-PlistError thrown: \(error)")
    }
    guard [.openStep, .gnustep, .strings, .xml].contains(plain.format), !(size >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B) else { return 0 }
    var document: PlistTextDocument
    do {
        document = try PlistTextDocument(bytes, options: options)
    } catch {
        FuzzCheck.fail("the document refused what the plain reader read: \(error)")
    }
    if document.write() != bytes { FuzzCheck.fail("unedited document does not write back its bytes") }
    if document.value != plain.value { FuzzCheck.fail("the document's value differs from the plain reader's") }
    // An edit chosen by the input's last byte: a path among the value's first ones, and an operation.
    var paths: [KeyPath] = []
    func walk(_ v: PlistValue, _ p: [String]) {
        guard paths.count < 64 else { return }
        if !p.isEmpty { paths.append(KeyPath(components: p)) }
        switch v {
        case .dictionary(let d): for (k, c) in d { walk(c, p + [k]) }
        case .array(let a): for (i, c) in a.enumerated() { walk(c, p + [String(i)]) }
        default: break
        }
    }
    walk(plain.value, [])
    guard !paths.isEmpty, let last = bytes.last else { return 0 }
    let path = paths[Int(last) % paths.count]
    let newValue: PlistValue = last & 1 == 0 ? "fuzz \"edit\"" : ["k": "v", "a": ["x"]]
    let before = document.bytes
    do {
        let expected: PlistValue
        switch (last >> 1) % 3 {
        case 0:
            expected = try plain.value.replacing(newValue, at: path)
            try document.replace(newValue, at: path)
        case 1:
            expected = try plain.value.removing(at: path)
            try document.remove(at: path)
        default:
            let child = path.appending("fuzzKey")
            expected = try plain.value.inserting(newValue, at: child)
            try document.insert(newValue, at: child)
        }
        if document.value != expected { FuzzCheck.fail("the edit's value differs from the tree edit") }
        guard let back = try? PropertyList.read(document.bytes, options: options).value, back == expected else {
            FuzzCheck.fail("the edited text does not read back to the tree edit")
        }
    } catch is PlistError {
        if document.bytes != before { FuzzCheck.fail("a failed edit changed the text") }
    } catch {
        FuzzCheck.fail("non-PlistError thrown: \(error)")
    }
    return 0
}

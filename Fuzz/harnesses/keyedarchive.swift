// libFuzzer property harness: any input either reads as a keyed archive and decodes to plain values, or throws
// PlistError; what decodes, archived again (sharing only identical values), decodes equal; and the graph written back
// reads as an equal graph.
import PlistKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyedArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeRawBufferPointer(start: data, count: size)
    var options = KeyedArchiveOptions()
    options.plist = FuzzCheck.options
    // The checks below archive the plain value again and compare trees, O(values × depth) for a shared DAG: a
    // budget of 64 Ki values keeps every input well inside libFuzzer's 10 s (2^18 took 7 s under ASan).
    options.maxPlainNodes = 1 << 16
    let archive: KeyedArchive
    let plain: PlistValue
    do {
        archive = try KeyedArchive(bytes, options: options)
        plain = try archive.plainValue(options: options)
    } catch is PlistError {
        return 0
    } catch {
        FuzzCheck.fail("non-PlistError thrown: \(error)")
    }
    do {
        let again = try KeyedArchive(archive.write(format: .binary))
        if again != archive { FuzzCheck.fail("the graph written back reads as another graph") }
        let rearchived = try KeyedArchiver.archivedData(plain, format: .binary, options: KeyedArchiverOptions(uniquing: .exact))
        let back = try KeyedArchive(rearchived).plainValue()
        if back != plain {
            FuzzCheck.fail("archived again, the plain value changed at \(PlistEquivalence.difference(plain, back, format: .binary) ?? "?")")
        }
    } catch {
        FuzzCheck.fail("what decoded does not archive and decode again: \(error)")
    }
    return 0
}

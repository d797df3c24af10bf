// libFuzzer harness: the XML reader must return a value or throw PlistError — nothing else.
import PlistKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzCheck.parse(UnsafeRawBufferPointer(start: data, count: size), as: .xml)
    return 0
}

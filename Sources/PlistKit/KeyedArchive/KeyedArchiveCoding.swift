import FoundationEssentials

/// Decodes `Decodable` types from the fields of archived objects, so a Swift program can read an app's archived
/// state without its Objective-C classes.
///
/// A keyed container is an object's fields (looked up by coder key, escaped as `NSKeyedArchiver` escapes them) or an
/// `NSDictionary`; an unkeyed container is an `NSArray`/`NSSet`/`NSOrderedSet`; `String`, numbers, `Bool`, `Data`,
/// `Date`, `URL` and `UUID` come from their plain or Foundation forms; nil (UID 0, `NSNull`) decodes as `nil`.
/// ```swift
/// struct Settings: Decodable { var name: String; var count: Int; var tags: [String] }
/// let s = try KeyedArchiveDecoder().decode(Settings.self, from: archiveBytes)
/// ```
public struct KeyedArchiveDecoder: Sendable {
    /// Caps and choices for reading the archive.
    public var options = KeyedArchiveOptions()

    public init() {}

    /// Decodes the object under `$top.<key>` (`root` by default).
    public func decode<T: Decodable>(_ type: T.Type, from archive: KeyedArchive, key: String = "root") throws -> T {
        guard let uid = archive.topUID(forKey: key) else {
            throw DecodingError.valueNotFound(T.self, DecodingError.Context(
                codingPath: [], debugDescription: "the archive has no $top.\(key)"))
        }
        var decoder = PlainArchiveDecoder(archive, options: options)
        decoder.codableFields = true
        let value: PlistValue
        do {
            value = try decoder.topValue(uid, key: key)
        } catch let error as PlistError {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "The archive cannot be decoded: \(error.description)", underlyingError: error))
        }
        return try PlistDecoder().decode(T.self, fromValue: value)
    }

    /// Reads an archive (any property-list format) and decodes its root object.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(data, options: options)
        } catch let error as PlistError {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "Not a readable keyed archive: \(error.description)", underlyingError: error))
        }
        return try decode(type, from: archive)
    }
}

/// Encodes `Encodable` values as keyed archives whose objects have fields, as an Objective-C class's
/// `encode(with:)` would write them.
///
/// A type that uses a keyed container becomes an object of class `className(for:)` (by default the Swift type's
/// name, as `NSStringFromClass` names Swift classes), its integers, reals and Booleans stored inline and everything
/// else by reference; arrays become `NSArray`, `[String: …]` dictionaries `NSDictionary`, `Date` `NSDate`, `URL`
/// `NSURL`, `UUID` `NSUUID`, `nil` UID 0. `KeyedArchiveDecoder` reads the result back.
public struct KeyedArchiveEncoder: Sendable {
    /// `.binary` (the default) or `.xml`.
    public var outputFormat: PlistFormat = .binary
    /// The class name written for a type encoded through a keyed container.
    public var className: @Sendable (Any.Type) -> String = { String(reflecting: $0) }

    public init() {}

    /// The archive of `value` as the root object.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let node = try ArchiveNodeEncoder.node(for: value, className: className)
        var builder = ArchiveBuilder()
        let root = builder.write(node)
        return try KeyedArchiver.serialize(builder.finish(top: [("root", root)]), format: outputFormat)
    }
}

/// What the encoder builds before it is written: the shape of the archive's objects.
indirect enum ArchiveNode {
    case null
    case scalar(PlistValue)
    case date(Double)
    case url(String)
    case uuid(Data)
    case array([ArchiveNode])
    case dictionary([(String, ArchiveNode)])
    case object(String, [(String, ArchiveNode)])
}

extension ArchiveBuilder {
    /// Appends `node` (pre-order, class descriptions after the first object's children, as `NSKeyedArchiver`).
    mutating func write(_ node: ArchiveNode) -> UID {
        switch node {
        case .null: return UID(0)
        case .scalar(let v): return UID(scalarUID(v))
        default: break
        }
        let uid = appendPlaceholder()
        let entry: PlistValue
        switch node {
        case .date(let t):
            entry = ["$class": .uid(UID(classUID("NSDate", ["NSDate", "NSObject"]))), "NS.time": .real(PlistReal(t))]
        case .url(let s):
            let relative = write(.scalar(.string(s)))
            entry = ["$class": .uid(UID(classUID("NSURL", ["NSURL", "NSObject"]))), "NS.base": .uid(UID(0)), "NS.relative": .uid(relative)]
        case .uuid(let b):
            entry = ["$class": .uid(UID(classUID("NSUUID", ["NSUUID", "NSObject"]))), "NS.uuidbytes": .data(b)]
        case .array(let elements):
            let refs = elements.map { PlistValue.uid(write($0)) }
            entry = ["$class": .uid(UID(classUID("NSArray", ["NSArray", "NSObject"]))), "NS.objects": .array(refs)]
        case .dictionary(let pairs):
            let keys = pairs.map { PlistValue.uid(write(.scalar(.string($0.0)))) }
            let values = pairs.map { PlistValue.uid(write($0.1)) }
            entry = ["$class": .uid(UID(classUID("NSDictionary", ["NSDictionary", "NSObject"]))),
                     "NS.keys": .array(keys), "NS.objects": .array(values)]
        case .object(let name, let fields):
            var d = PlistDictionary(minimumCapacity: fields.count + 1)
            for (key, value) in fields {
                let stored = ArchivedObject.escape(key)
                switch value {
                // NSCoder's encode(_: Int/Double/Bool, forKey:) store numbers inline (NSKeyedArchiver.swift).
                case .scalar(let v) where v.integerValue != nil || v.realValue != nil || v.boolValue != nil: d[stored] = v
                default: d[stored] = .uid(write(value))
                }
            }
            d["$class"] = .uid(UID(classUID(name, [name, "NSObject"])))
            entry = .dictionary(d)
        case .null, .scalar:
            entry = .string("$null")
        }
        set(uid, entry)
        return UID(uid)
    }
}

/// Marks `[String: V]`, which encodes as an `NSDictionary` rather than an object.
private protocol StringKeyedDictionary {}
extension Dictionary: StringKeyedDictionary where Key == String {}

/// A small `Encoder` that records `ArchiveNode`s.
final class ArchiveNodeEncoder: Encoder {
    var codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let className: @Sendable (Any.Type) -> String
    let typeName: String
    var result: Result = .none

    enum Result {
        case none
        case single(ArchiveNode)
        case keyed(Box)
        case unkeyed(Box)
    }

    final class Box {
        var keyed: [(String, ArchiveNode)] = []
        var elements: [ArchiveNode] = []
    }

    /// Work shared by an encoder and the nested containers it hands out.
    final class Pending { var work: [() -> Void] = [] }
    let pending: Pending

    init(codingPath: [any CodingKey], className: @escaping @Sendable (Any.Type) -> String, typeName: String,
         pending: Pending = Pending()) {
        self.codingPath = codingPath
        self.className = className
        self.typeName = typeName
        self.pending = pending
    }

    /// A nested container's encoder: its slot is filled when the outer encoding is done.
    func nested(_ key: (any CodingKey)?, typeName: String) -> ArchiveNodeEncoder {
        ArchiveNodeEncoder(codingPath: key.map { codingPath + [$0] } ?? codingPath, className: className,
                           typeName: typeName, pending: pending)
    }

    static func node<T: Encodable>(for value: T, className: @escaping @Sendable (Any.Type) -> String,
                                   codingPath: [any CodingKey] = []) throws -> ArchiveNode {
        switch value {
        case let v as String: return .scalar(.string(v))
        case let v as Bool: return .scalar(.bool(v))
        case let v as Double: return .scalar(.real(PlistReal(v)))
        case let v as Float: return .scalar(.real(PlistReal(v)))
        case let v as Int: return .scalar(.integer(PlistInteger(v)))
        case let v as Int64: return .scalar(.integer(PlistInteger(v)))
        case let v as UInt64: return .scalar(.integer(PlistInteger(v)))
        case let v as Data: return .scalar(.data(v))
        case let v as Date: return .date(v.timeIntervalSinceReferenceDate)
        case let v as URL: return .url(v.absoluteString)
        case let v as UUID: return .uuid(withUnsafeBytes(of: v.uuid) { Data($0) })
        default: break
        }
        let encoder = ArchiveNodeEncoder(codingPath: codingPath, className: className, typeName: className(T.self))
        try value.encode(to: encoder)
        // Innermost first: an outer slot reads what the inner ones filled.
        for work in encoder.pending.work.reversed() { work() }
        switch encoder.result {
        case .none: return .null
        case .single(let n): return n
        case .unkeyed(let box): return .array(box.elements)
        case .keyed(let box): return value is StringKeyedDictionary ? .dictionary(box.keyed) : .object(encoder.typeName, box.keyed)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let box: Box
        if case .keyed(let b) = result { box = b } else { box = Box(); result = .keyed(box) }
        return KeyedEncodingContainer(Keyed<Key>(encoder: self, box: box))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let box: Box
        if case .unkeyed(let b) = result { box = b } else { box = Box(); result = .unkeyed(box) }
        return Unkeyed(encoder: self, box: box)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { Single(encoder: self) }

    struct Keyed<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let encoder: ArchiveNodeEncoder
        let box: Box
        var codingPath: [any CodingKey] { encoder.codingPath }

        mutating func encodeNil(forKey key: Key) throws { box.keyed.append((key.stringValue, .null)) }
        mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
            box.keyed.append((key.stringValue, try ArchiveNodeEncoder.node(for: value, className: encoder.className,
                                                                             codingPath: codingPath + [key])))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
            let nested = encoder.nested(key, typeName: "NSDictionary")
            let c = nested.container(keyedBy: keyType)
            box.keyed.append((key.stringValue, .null))
            let index = box.keyed.count - 1
            encoder.pending.work.append { [box] in
                if case .keyed(let b) = nested.result { box.keyed[index].1 = .dictionary(b.keyed) }
            }
            return c
        }
        mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            let nested = encoder.nested(key, typeName: "NSArray")
            let c = nested.unkeyedContainer()
            box.keyed.append((key.stringValue, .null))
            let index = box.keyed.count - 1
            encoder.pending.work.append { [box] in
                if case .unkeyed(let b) = nested.result { box.keyed[index].1 = .array(b.elements) }
            }
            return c
        }
        mutating func superEncoder() -> any Encoder { encoder }
        mutating func superEncoder(forKey key: Key) -> any Encoder { encoder }
    }

    struct Unkeyed: UnkeyedEncodingContainer {
        let encoder: ArchiveNodeEncoder
        let box: Box
        var codingPath: [any CodingKey] { encoder.codingPath }
        var count: Int { box.elements.count }

        mutating func encodeNil() throws { box.elements.append(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            box.elements.append(try ArchiveNodeEncoder.node(for: value, className: encoder.className, codingPath: codingPath))
        }
        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
            let nested = encoder.nested(nil, typeName: "NSDictionary")
            let c = nested.container(keyedBy: keyType)
            box.elements.append(.null)
            let index = box.elements.count - 1
            encoder.pending.work.append { [box] in
                if case .keyed(let b) = nested.result { box.elements[index] = .dictionary(b.keyed) }
            }
            return c
        }
        mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
            let nested = encoder.nested(nil, typeName: "NSArray")
            let c = nested.unkeyedContainer()
            box.elements.append(.null)
            let index = box.elements.count - 1
            encoder.pending.work.append { [box] in
                if case .unkeyed(let b) = nested.result { box.elements[index] = .array(b.elements) }
            }
            return c
        }
        mutating func superEncoder() -> any Encoder { encoder }
    }

    struct Single: SingleValueEncodingContainer {
        let encoder: ArchiveNodeEncoder
        var codingPath: [any CodingKey] { encoder.codingPath }
        mutating func encodeNil() throws { encoder.result = .single(.null) }
        mutating func encode<T: Encodable>(_ value: T) throws {
            encoder.result = .single(try ArchiveNodeEncoder.node(for: value, className: encoder.className, codingPath: codingPath))
        }
    }

}

import Foundation
import Testing
@testable import PlistKit

/// An Objective-C-style class as an app would archive it: Foundation's `NSKeyedArchiver` writes its fields.
final class ArchivedPerson: NSObject, NSSecureCoding {
    static let supportsSecureCoding = true
    let name: String
    let age: Int
    let height: Double
    let tags: [String]
    let born: Date
    let home: URL?
    let id: UUID

    init(name: String, age: Int, height: Double, tags: [String], born: Date, home: URL?, id: UUID) {
        self.name = name; self.age = age; self.height = height; self.tags = tags; self.born = born; self.home = home; self.id = id
    }

    func encode(with coder: NSCoder) {
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(height, forKey: "height")
        coder.encode(NSArray(array: tags.map { NSString(string: $0) }), forKey: "tags")
        coder.encode(born as NSDate, forKey: "born")
        coder.encode(home.map { $0 as NSURL }, forKey: "home")
        coder.encode(id as NSUUID, forKey: "$id")
    }

    required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(forKey: "name") as? String,
              let tags = coder.decodeObject(forKey: "tags") as? [String],
              let born = coder.decodeObject(forKey: "born") as? Date,
              let id = coder.decodeObject(forKey: "$id") as? UUID else { return nil }
        self.name = name
        self.age = coder.decodeInteger(forKey: "age")
        self.height = coder.decodeDouble(forKey: "height")
        self.tags = tags
        self.born = born
        self.home = coder.decodeObject(forKey: "home") as? URL
        self.id = id
    }
}

/// The same state as a Swift value type.
struct Person: Codable, Equatable {
    var name: String
    var age: Int
    var height: Double
    var tags: [String]
    var born: Date
    var home: URL?
    var id: UUID

    enum CodingKeys: String, CodingKey { case name, age, height, tags, born, home, id = "$id" }
}

@Suite struct KeyedArchiveCodingTests {
    static let uuid = UUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!

    @Test func decodesWhatFoundationArchivedFromAClass() throws {
        let object = ArchivedPerson(name: "Ada", age: 36, height: 1.65, tags: ["math", "engines"],
                                    born: Date(timeIntervalSinceReferenceDate: -5_000_000_000), home: URL(string: "https://example.com/ada"),
                                    id: Self.uuid)
        let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        let person = try KeyedArchiveDecoder().decode(Person.self, from: data)
        #expect(person == Person(name: "Ada", age: 36, height: 1.65, tags: ["math", "engines"],
                                 born: Date(timeIntervalSinceReferenceDate: -5_000_000_000),
                                 home: URL(string: "https://example.com/ada"), id: Self.uuid))
    }

    @Test func nilFieldDecodesAsNil() throws {
        let object = ArchivedPerson(name: "B", age: 1, height: 0, tags: [], born: Date(timeIntervalSinceReferenceDate: 0), home: nil, id: Self.uuid)
        let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
        #expect(try KeyedArchiveDecoder().decode(Person.self, from: data).home == nil)
    }

    /// Foundation's unarchiver reads our encoding into the Objective-C-style class (through `init(coder:)`).
    @Test func foundationReadsWhatWeEncode() throws {
        let person = Person(name: "Grace", age: 85, height: 1.7, tags: ["cobol"], born: Date(timeIntervalSinceReferenceDate: 12.5),
                            home: URL(string: "https://example.org/"), id: Self.uuid)
        for format in [PlistFormat.binary, .xml] {
            var encoder = KeyedArchiveEncoder()
            encoder.outputFormat = format
            let bytes = try encoder.encode(person)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(bytes))
            unarchiver.requiresSecureCoding = false
            unarchiver.decodingFailurePolicy = .setErrorAndReturn
            unarchiver.setClass(ArchivedPerson.self, forClassName: String(reflecting: Person.self))
            let object = try #require(unarchiver.decodeObject(forKey: "root") as? ArchivedPerson, "\(String(describing: unarchiver.error))")
            #expect(object.name == "Grace" && object.age == 85 && object.height == 1.7 && object.tags == ["cobol"])
            #expect(object.born == person.born && object.home == person.home && object.id == Self.uuid)
            // And our own decoder reads it back.
            #expect(try KeyedArchiveDecoder().decode(Person.self, from: Data(bytes)) == person)
        }
    }

    struct Nested: Codable, Equatable {
        var inner: [String: [Int]]
        var list: [[String]]
        var optional: Int?
        var flag: Bool
    }

    @Test func nestedContainersRoundTrip() throws {
        let value = Nested(inner: ["a": [1, 2], "b": []], list: [["x"], [], ["y", "z"]], optional: nil, flag: true)
        let bytes = try KeyedArchiveEncoder().encode(value)
        #expect(try KeyedArchiveDecoder().decode(Nested.self, from: Data(bytes)) == value)
        let archive = try KeyedArchive(bytes)
        #expect(archive.className(of: try #require(archive.rootUID)) == String(reflecting: Nested.self))
        // Integers and Booleans are stored inline in the object, as NSCoder's encode(_:forKey:) stores them.
        #expect(archive.object(try #require(archive.rootUID))?.fields["flag"] == true)
    }

    @Test func corruptArchiveIsADecodingError() {
        #expect(throws: DecodingError.self) { try KeyedArchiveDecoder().decode(Person.self, from: Data("nope".utf8)) }
    }
}

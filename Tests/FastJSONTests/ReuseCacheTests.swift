import SharedTestSupport
import CricsheetReplay
import Cricket
import FastJSON
import Foundation
import Testing

/// A decode through `FastJSONReuseCache` must return exactly what a plain decode returns, whatever changed.
@Suite struct ReuseCacheTests {
    struct Item: Codable, Equatable, Sendable {
        var id: Int
        var name: String
        var tags: [String]
    }

    struct Document: Codable, Equatable, Sendable {
        var items: [Item]
        var others: [Item]?
        var count: Int
    }

    /// Sorted keys, as every message of the pipeline (MessageCodec): Foundation's default key order can differ
    /// between two encodes of equal values, and then nothing is byte-identical.
    static func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try encoder.encode(value))
    }

    func bytes(_ document: Document) throws -> [UInt8] { try Self.encode(document) }

    func item(_ id: Int, _ name: String = "n") -> Item { Item(id: id, name: "\(name)\(id)", tags: ["t\(id)"]) }

    @Test func unchangedElementsAreReusedAndChangedOnesDecodedAgain() throws {
        let cache = FastJSONReuseCache(reusing: [Item.self])
        var document = Document(items: [item(1), item(2), item(3)], count: 3)
        #expect(try FastJSONDecoder().decode(Document.self, from: bytes(document), reusing: cache) == document)
        #expect(cache.statistics.hits == 0 && cache.statistics.misses == 3)

        document.items.append(item(4))
        #expect(try FastJSONDecoder().decode(Document.self, from: bytes(document), reusing: cache) == document)
        // Items 1 and 2 are byte-identical; item 3 was the last element (its text ran up to the array's end)
        // and item 4 is new.
        #expect(cache.statistics.hits >= 2)

        // A corrected element of the same length: must not come back from the cache.
        let before = cache.statistics
        document.items[1] = Item(id: 2, name: "m2", tags: ["t2"])
        let decoded = try FastJSONDecoder().decode(Document.self, from: bytes(document), reusing: cache)
        #expect(decoded == document)
        #expect(decoded.items[1].name == "m2")
        #expect(cache.statistics.misses > before.misses)
    }

    @Test func sameTypeInTwoArraysNeverMixesValues() throws {
        let cache = FastJSONReuseCache(reusing: [Item.self])
        let first = Document(items: [item(1), item(2)], others: [item(7, "x"), item(8, "x")], count: 2)
        let second = Document(items: [item(7, "x"), item(2)], others: [item(1), item(9)], count: 2)
        for document in [first, second, first, second] {
            #expect(try FastJSONDecoder().decode(Document.self, from: bytes(document), reusing: cache) == document)
        }
    }

    @Test func positionsBeyondTheLimitAreDecodedNotRemembered() throws {
        let cache = FastJSONReuseCache(reusing: [Item.self], maximumSlots: 2)
        let document = Document(items: (1...5).map { item($0) }, count: 5)
        for _ in 0..<3 {
            #expect(try FastJSONDecoder().decode(Document.self, from: bytes(document), reusing: cache) == document)
        }
        // Only positions 0 and 1 are cached; 3 decodes remember each once and hit twice.
        #expect(cache.statistics.misses == 2)
        #expect(cache.statistics.hits == 4)
    }

    @Test func malformedInputStillFailsAndLeavesTheCacheUsable() throws {
        let cache = FastJSONReuseCache(reusing: [Item.self])
        let document = Document(items: [item(1)], count: 1)
        _ = try FastJSONDecoder().decode(Document.self, from: bytes(document), reusing: cache)
        var broken = try bytes(document)
        broken.removeLast(3)
        #expect(throws: DecodingError.self) { try FastJSONDecoder().decode(Document.self, from: broken, reusing: cache) }
        let wrongType = Array(#"{"items":[{"id":"one","name":"a","tags":[]}],"count":1}"#.utf8)
        #expect(throws: DecodingError.self) { try FastJSONDecoder().decode(Document.self, from: wrongType, reusing: cache) }
        #expect(try FastJSONDecoder().decode(Document.self, from: bytes(document), reusing: cache) == document)
    }

    /// A whole real match, ball by ball, with one cache: every snapshot equals the plain decode.
    @Test func aReplayedMatchDecodesIdenticallyWithTheCache() throws {
        let file = try #require(try DataDirectory.matchFiles().first { $0.lastPathComponent == "1415755.json" }
                                ?? DataDirectory.matchFiles().first)
        let match = try CricsheetMatch.load(contentsOf: file)
        let builder = SportMonksFixtureBuilder(match: match)
        let cache = FastJSONReuseCache(reusing: [SportMonksBall.self])
        var snapshots = 0
        for (index, position) in match.replayTimeline().enumerated() where index % 3 == 0 {
            var fixture = builder.fixture(at: position)
            if index % 30 == 0, var balls = fixture.balls, balls.count > 2 {
                // A correction: an old ball's outcome changes after the fact.
                balls[1].score.runs += 1
                fixture.balls = balls
            }
            let message = try Self.encode(fixture)
            let cached = try FastJSONDecoder().decode(SportMonksFixture.self, from: message, reusing: cache)
            #expect(cached == (try FastJSONDecoder().decode(SportMonksFixture.self, from: message)), "position \(index)")
            snapshots += 1
        }
        #expect(snapshots > 20)
        #expect(cache.statistics.hits > cache.statistics.misses)
    }
}

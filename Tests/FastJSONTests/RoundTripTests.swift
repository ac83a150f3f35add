import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import FastJSON
import Foundation
import Testing

/// FastJSON must decode exactly what JSONDecoder decodes, on the real data shapes.
@Suite struct RoundTripTests {
    struct Snapshot: Decodable, Equatable {
        var schema: Int
        var matchId: String
        var polledAt: Int64
        var fixture: SportMonksFixture
        var balls: [SportMonksBall]?
    }

    @Test func everyCricsheetMatchAtSeveralPositionsDecodesLikeJSONDecoder() throws {
        let files = try DataDirectory.matchFiles()
        #expect(files.count >= 10, "Cricsheet data not found at \(DataDirectory.cricsheet.path)")
        var compared = 0
        for file in files {
            let match = try CricsheetMatch.load(contentsOf: file)
            let builder = SportMonksFixtureBuilder(match: match)
            let timeline = match.replayTimeline()
            let picks = Set([0, 1, timeline.count / 3, timeline.count / 2, timeline.count - 1].filter { $0 >= 0 })
            for index in picks.sorted() where index < timeline.count {
                let fixture = builder.fixture(at: timeline[index])
                // Both the plain encoding (SportMonks order) and the message encoding (sorted keys).
                let plain = Array(try JSONEncoder().encode(fixture))
                let fast = try FastJSONDecoder().decode(SportMonksFixture.self, from: plain)
                let foundation = try JSONDecoder().decode(SportMonksFixture.self, from: Data(plain))
                #expect(fast == foundation, "match \(file.lastPathComponent) position \(index)")

                let json = try JSONDecoder().decode(JSONValue.self, from: Data(plain))
                // The pages that carry the whole fixture from nothing (the longest messages there are).
                let plan = try FixtureSnapshotPager.plan(matchId: "\(match.id)", polledAt: 7, fixture: json, after: FixtureFeedCursor())
                for message in plan.encoded {
                    let typed = try FastJSONDecoder().decode(Snapshot.self, from: message)
                    #expect(typed == (try JSONDecoder().decode(Snapshot.self, from: Data(message))))
                    let untyped = try FastJSONDecoder().decode(FixtureSnapshot.self, from: message)
                    #expect(untyped == (try JSONDecoder().decode(FixtureSnapshot.self, from: Data(message))))
                    #expect(untyped == (try MessageCodec.decode(FixtureSnapshot.self, from: message)))
                }
                compared += 1
            }
        }
        #expect(compared >= 40)
    }

    @Test func recordedSportMonksReplyDecodesLikeJSONDecoder() throws {
        let url = DataDirectory.reference.appendingPathComponent("fixture-71344-live.json")
        let bytes = Array(try Data(contentsOf: url))
        struct Envelope: Decodable, Equatable { var data: SportMonksFixture }
        let fast = try FastJSONDecoder().decode(Envelope.self, from: bytes)
        #expect(fast == (try JSONDecoder().decode(Envelope.self, from: Data(bytes))))
        #expect(fast.data.id == 71344)
        #expect((fast.data.balls?.count ?? 0) > 100)
        // Untyped: the whole reply as JSONValue.
        #expect(try FastJSONDecoder().decode(JSONValue.self, from: bytes)
                == JSONDecoder().decode(JSONValue.self, from: Data(bytes)))
    }
}

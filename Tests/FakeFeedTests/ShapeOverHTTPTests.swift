import SharedTestSupport
import Contracts
import Cricket
import CricsheetReplay
import FakeFeed
import Foundation
import Testing

/// What fake-sportmonks serves over HTTP has the recorded live reply's keys and JSON types.
@Suite struct ShapeOverHTTPTests {
    static let allowedExtra: Set<String> = ["data.scoreboards"]
    /// Facts Cricsheet does not carry, written as null.
    static let unknownFacts: Set<String> = ["country_id", "dateofbirth", "battingstyle", "bowlingstyle", "position",
                                            "capacity", "floodlight", "city"]
    /// Nullable in SportMonks: pp1 without a powerplay, stage code, `note` before a target is set.
    static let nullable: Set<String> = ["data.runs[].pp1", "data.stage.code", "data.note"]
    static let fullInclude = "league,season,stage,localteam,visitorteam,batting,bowling,runs,scoreboards,lineup,"
        + "balls.score,balls.batsman,balls.bowler,balls.team,winnerteam,tosswon,venue"

    func referenceShape() throws -> JSONShape {
        let data = try Data(contentsOf: DataDirectory.reference.appendingPathComponent("fixture-71344-live.json"))
        return JSONShape(of: try JSONDecoder().decode(JSONValue.self, from: data))
    }

    func significant(_ differences: [ShapeDifference]) -> [ShapeDifference] {
        Set(differences).filter { difference in
            switch difference.kind {
            case .extraKey: return !Self.allowedExtra.contains(difference.path)
            case .nullWhereValue:
                let field = String(difference.path.split(separator: ".").last ?? "")
                return !Self.unknownFacts.contains(field) && !Self.nullable.contains(difference.path)
            case .missingKey, .typeMismatch: return true
            }
        }.sorted { $0.path < $1.path }
    }

    @Test(arguments: [1304076, 1144504, 1216517])
    func liveFixtureOverHTTPMatchesRecordedReply(id: Int) async throws {
        let harness = try FeedHarness(ids: [id], configuration: .init(liveMatchIds: [id]))
        defer { harness.stop() }
        let match = try DataDirectory.match(id)
        try harness.feed.seek(id, delivery: match.innings[0].deliveryCount + 9)
        let reply = try await harness.api("/api/v2.0/fixtures/\(id)", "include=\(Self.fullInclude)")
        #expect(reply.status == 200)
        #expect(reply.headers["content-type"] == "application/json")
        #expect(reply.text.contains("https:\\/\\/cdn.sportmonks.com"), "slashes escaped like SportMonks")
        let value = try #require(reply.json)
        #expect(value["data"]?["status"] == .string("2nd Innings"))
        let diffs = significant(ShapeComparer.compare(value, to: try referenceShape()))
        #expect(diffs.isEmpty, "\(diffs.map(\.description).joined(separator: "\n"))")
        // And the strict decoder reads it.
        let fixture = try SportMonksFixture.decode(from: reply.body)
        #expect(fixture.id == id)
        #expect(fixture.balls?.count == match.innings[0].deliveryCount + 9)
    }

    @Test func livescoresListHasTheSameFixtureShape() async throws {
        let ids = [1304076, 1144504]
        let harness = try FeedHarness(ids: ids, configuration: .init(liveMatchIds: Set(ids)))
        defer { harness.stop() }
        harness.clock.advance(by: 30)
        let reply = try await harness.api("/api/v2.0/livescores", "include=\(Self.fullInclude)")
        guard case .array(let items)? = reply.json?["data"] else { Issue.record("no data array"); return }
        #expect(items.count == 2, "several matches live at once")
        let reference = try referenceShape()
        for item in items {
            let diffs = significant(ShapeComparer.compare(.object(["data": item]), to: reference))
            #expect(diffs.isEmpty, "\(diffs.map(\.description).joined(separator: "\n"))")
        }
        #expect(reply.json?["meta"] == nil && reply.json?["links"] == nil, "livescores is not paginated")
        _ = try SportMonksFixtureList.decode(from: reply.body)
    }

    @Test func includesNotAskedForAreAbsent() async throws {
        let harness = try FeedHarness(ids: [1144504], configuration: .init(liveMatchIds: [1144504]))
        defer { harness.stop() }
        try harness.feed.seek(1144504, delivery: 20)
        let bare = try #require(try await harness.api("/api/v2.0/fixtures/1144504").json?["data"])
        for relation in IncludeSet.fixtureRelations { #expect(bare[relation] == nil, "\(relation) not requested") }
        #expect(bare["status"] == .string("1st Innings"))
        let some = try #require(try await harness.api("/api/v2.0/fixtures/1144504", "include=runs,localteam,balls").json?["data"])
        #expect(some["runs"] != nil && some["localteam"] != nil && some["balls"] != nil)
        #expect(some["visitorteam"] == nil && some["batting"] == nil && some["winnerteam"] == nil)
        guard case .array(let balls)? = some["balls"], let ball = balls.first else { Issue.record("no balls"); return }
        #expect(ball["score"] == nil && ball["batsman"] == nil, "nested ball includes only when asked")
        #expect(ball["score_id"] != nil)
        let nested = try #require(try await harness.api("/api/v2.0/fixtures/1144504", "include=balls.score").json?["data"])
        guard case .array(let nestedBalls)? = nested["balls"] else { Issue.record("no balls"); return }
        #expect(nestedBalls.first?["score"] != nil && nestedBalls.first?["team"] == nil)
    }
}

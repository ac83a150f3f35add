import Cricket
import Foundation
import Testing

@Suite struct RealReplyTests {
    @Test func decodesTheRecordedLiveReply() throws {
        let fixture = try SportMonksFixture.decode(from: ReferenceFiles.data("fixture-71344-live.json"))
        #expect(fixture.id == 71344)
        #expect(fixture.status == .innings(2))
        #expect(fixture.status.phase == .inPlay)
        #expect(fixture.note == "Target 183 runs")
        #expect(fixture.balls?.count == 135)
        #expect(fixture.lineup?.count == 22)
        #expect(fixture.runs?.count == 2)
        #expect(fixture.winnerteam == nil)
        #expect(fixture.tosswon?.id == 39)
        #expect(fixture.localteam?.code == "PAK")
        #expect(fixture.balls?.first?.score.name == "1 Run")
        #expect(fixture.lineup?.first?.lineup?.teamId == 1)
    }

    /// The innings state rebuilt from `balls` equals SportMonks' own `runs` rows (runs, wickets, overs).
    @Test func ballsAgreeWithRunsRows() throws {
        let fixture = try SportMonksFixture.decode(from: ReferenceFiles.data("fixture-71344-live.json"))
        let fromBalls = fixture.inningsScoresFromBalls()
        let runs = try #require(fixture.runs)
        #expect(!runs.isEmpty)
        for row in runs {
            let computed = try #require(fromBalls[row.scoreboard], "no balls for \(row.scoreboard)")
            #expect(computed == InningsScore(run: row), "\(row.scoreboard)")
            #expect(computed.overs == row.overs)
        }
        #expect(fromBalls["S1"] == InningsScore(runs: 182, wickets: 8, legalBalls: 120))
        #expect(fromBalls["S2"] == InningsScore(runs: 10, wickets: 0, legalBalls: 8))
    }

    @Test func trimmedReplyDecodes() throws {
        let fixture = try SportMonksFixture.decode(from: ReferenceFiles.data("fixture-71344-live.trimmed.json"))
        #expect(fixture.id == 71344)
    }

    @Test func reEncodingKeepsEveryValue() throws {
        let fixture = try SportMonksFixture.decode(from: ReferenceFiles.data("fixture-71344-live.json"))
        let again = try SportMonksFixture.decode(from: fixture.encodedEnvelope())
        #expect(again == fixture)
    }

    @Test func listEnvelopeDecodes() throws {
        let single = try ReferenceFiles.data("fixture-71344-live.trimmed.json")
        let object = try #require(try JSONSerialization.jsonObject(with: single) as? [String: Any])
        let list = try JSONSerialization.data(withJSONObject: ["data": [object["data"]!, object["data"]!]])
        let decoded = try SportMonksFixtureList.decode(from: list)
        #expect(decoded.data.count == 2)
        #expect(decoded.page == nil)
    }
}

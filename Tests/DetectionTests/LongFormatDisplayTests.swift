import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Foundation
import Testing
@testable import Detection

/// What a Test shows (issue 15, item 4): the day, the lead or deficit, a declaration, a follow-on, and a
/// target only in the fourth innings, on the real Tests of ../shared/data.
@Suite struct LongFormatDisplayTests {
    /// The status text of `matchId` after `deliveries` deliveries (or at a break of the timeline).
    static func status(_ matchId: Int, at position: (CricsheetMatch, [ReplayPosition]) -> ReplayPosition,
                       edit: (inout SportMonksFixture) -> Void = { _ in }) throws -> String {
        let match = try DataDirectory.match(matchId)
        var fixture = SportMonksFixtureBuilder(match: match).fixture(at: position(match, match.replayTimeline()))
        edit(&fixture)
        let outcome = MatchDetector().process(fixture: fixture, matchId: "\(matchId)", polledAt: 1_800_000_000_000, state: nil)
        return try #require(outcome.state.displayState?.statusText)
    }

    static func delivery(_ count: Int) -> (CricsheetMatch, [ReplayPosition]) -> ReplayPosition {
        { _, timeline in timeline.first { $0.deliveries == count && $0.phase == .inningsInProgress }! }
    }

    @Test("the day of play and the first-innings deficit: Day 1 · ENG trail by 179, then Day 4 in the chase")
    func dayAndDeficit() throws {
        // 1152848: Australia 179 all out (316 deliveries); England's reply starts on day 1.
        #expect(try Self.status(1152848, at: Self.delivery(317)) == "Day 1 · ENG trail by 179")
        let last = try Self.status(1152848, at: Self.delivery(1705))
        #expect(last.hasPrefix("Day 4 · "), "\(last)")
    }

    @Test("a target only in the fourth innings; a lead in the third")
    func targetOnlyInTheFourthInnings() throws {
        // 1152848: innings 3 (Australia, 246) leads; innings 4 chases 359.
        let third = try Self.status(1152848, at: Self.delivery(316 + 167 + 100))
        #expect(third.contains("AUS lead by") && !third.contains("need"), "\(third)")
        let fourth = try Self.status(1152848, at: Self.delivery(316 + 167 + 461 + 1))
        #expect(fourth.contains("ENG need") && fourth.contains("to win"), "\(fourth)")
    }

    @Test("the break after a declaration says so, with the target set")
    func declaration() throws {
        // 1426557: Australia declared their second innings at 89/7 (deliveries 712 + 477 + 110).
        let text = try Self.status(1426557) { match, timeline in
            timeline.first { $0.deliveries == 712 + 477 + 110 && $0.phase == .inningsBreak }!
        }
        #expect(text == "AUS declared · IND need 275 to win", "\(text)")
    }

    @Test("a follow-on is named in the third innings")
    func followOn() throws {
        // 1426557 with the third innings played by India (the side that batted second): a follow-on.
        let text = try Self.status(1426557, at: Self.delivery(712 + 477 + 20)) { fixture in
            let india = fixture.balls!.first { $0.scoreboard == "S2" }!.teamId
            fixture.balls = fixture.balls!.map { ball in
                var ball = ball
                if ball.scoreboard == "S3" { ball.teamId = india }
                return ball
            }
            fixture.runs = fixture.runs!.map { row in
                var row = row
                if row.inning == 3 { row.teamId = india }
                return row
            }
        }
        #expect(text.contains("IND following on"), "\(text)")
    }

    @Test("no day label in limited-overs matches")
    func noDayInAT20() throws {
        let text = try Self.status(1415755, at: Self.delivery(30))
        #expect(!text.contains("Day "), "\(text)")
    }

    @Test("SportMonks timestamps read as Unix seconds; anything else is nil")
    func timestamps() {
        #expect(SportMonksTimestamp.seconds("1970-01-02T00:00:01.000000Z") == 86_401)
        #expect(SportMonksTimestamp.seconds("2024-06-29T14:00:00.000000Z") == 1_719_669_600)
        #expect(SportMonksTimestamp.seconds("2024-02-30") == nil)
        #expect(SportMonksTimestamp.seconds("not a date at all!!") == nil)
    }
}

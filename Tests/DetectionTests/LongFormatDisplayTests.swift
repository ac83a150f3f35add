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

    @Test("close of play: one silent stumps event per day but the last, last of its snapshot, with the day's close in the status; lunch and tea change only the status; the sessions are counted")
    func closeOfPlay() throws {
        let match = try DataDirectory.match(1152848)
        let builder = SportMonksFixtureBuilder(match: match)
        let detector = MatchDetector()
        var state: DetectorState?
        var polledAt: Int64 = 1_800_000_000_000
        var stumps: [(day: Int, event: MatchBusEvent)] = []
        var breakTexts: [String] = []
        var sessionTexts: [String] = []
        let timeline = match.replayTimeline()
        for (index, position) in timeline.enumerated() {
            // Every break, the positions around one, and every 25th delivery: enough to cross each day.
            let nearBreak = timeline[max(0, index - 1)...min(timeline.count - 1, index + 1)].contains { $0.isBreak }
            guard position.isBreak || nearBreak || position.deliveries % 25 == 0 || index == timeline.count - 1 else { continue }
            polledAt += 30_000
            let fixture = builder.fixture(at: position)
            let outcome = detector.process(fixture: fixture, matchId: "1152848", polledAt: polledAt, state: state)
            state = outcome.state
            if position.phase == .inningsInProgress, let text = outcome.state.displayState?.statusText { sessionTexts.append(text) }
            if position.phase == .lunch || position.phase == .tea {
                breakTexts.append(outcome.state.displayState?.statusText ?? "")
                #expect(outcome.events.allSatisfy { $0.keyEvent?.priority != 10 && !$0.endsActivities }, "\(position)")
            }
            for (offset, event) in outcome.events.enumerated() where event.keyEvent?.kind == .stumps {
                guard case .stumps(let day) = fixture.status else { Issue.record("stumps event at \(fixture.status)"); continue }
                stumps.append((day, event))
                #expect(offset == outcome.events.count - 1, "the day's close is the last event of its snapshot")
            }
        }
        let days = match.info.dates.count
        #expect(stumps.map(\.day) == Array(1..<days))
        for (day, event) in stumps {
            #expect(event.endsDay && !event.endsMatch && event.phase == .interrupted)
            #expect(event.keyEvent?.priority == 5 && event.keyEvent?.alert == nil, "silent")
            #expect(event.displayState.statusText.hasPrefix("Stumps · Day \(day) · "), "\(event.displayState.statusText)")
        }
        #expect(sessionTexts.contains { $0.hasPrefix("Day 2 · Session 1 · ") } && sessionTexts.contains { $0.hasPrefix("Day 2 · Session 2 · ") }
                && sessionTexts.contains { $0.hasPrefix("Day 2 · Session 3 · ") }, "the sessions of day 2: \(Set(sessionTexts.map { $0.prefix(19) }))")
        #expect(breakTexts.count == 2 * days)
        #expect(breakTexts.allSatisfy { $0.hasPrefix("Lunch · Day ") || $0.hasPrefix("Tea · Day ") }, "\(breakTexts)")
        #expect(state?.phase == .ended)
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

import Contracts
import Cricket
import Testing
@testable import Detection

@Suite("Robustness and idempotency")
struct RobustnessTests {
    typealias F = FixtureFactory

    static func specs(_ outcomes: [F.Outcome], bowler: Int = 104) -> [F.Spec] {
        outcomes.map { F.Spec(bowler: bowler, striker: 201, nonStriker: 202, outcome: $0) }
    }
    static let balls = F.balls(specs([.runs(1), .four, .runs(0), .six, .out("Clean Bowled"), .runs(2), .wide(1), .runs(0),
                                      .runs(3), .four]))
    let detector = MatchDetector()

    func at(_ count: Int, _ polledAt: Int64, _ state: DetectorState?, status: SportMonksStatus = .innings(1))
        -> DetectionOutcome
    {
        detector.process(fixture: F.fixture(Array(Self.balls.prefix(count)), status: status), matchId: "9",
                         polledAt: polledAt, state: state)
    }

    @Test("events carry the poll as emittedAt and the newest ball's updated_at as ballAt (nil without one)")
    func eventsCarryThePollAndTheBallTime() {
        var balls = Array(Self.balls.prefix(6))
        balls[5].updatedAt = "2026-12-02T10:15:30.000000Z"
        let outcome = detector.process(fixture: F.fixture(balls), matchId: "9", polledAt: 1_796_213_735_250, state: nil)
        #expect(!outcome.events.isEmpty)
        #expect(outcome.events.allSatisfy { $0.emittedAt == 1_796_213_735_250 && $0.ballAt == 1_796_206_530_000 })
        let undated = at(5, 1000, nil)
        #expect(!undated.events.isEmpty && undated.events.allSatisfy { $0.ballAt == nil })
    }

    @Test("a duplicate snapshot emits nothing and leaves the state as it was")
    func duplicate() {
        let first = at(5, 1000, nil)
        let again = at(5, 1000, first.state)
        #expect(again.disposition == .duplicate && again.events.isEmpty && again.state == first.state)
    }

    @Test("re-processing a snapshot from the same state yields the same eventIds, seqs and alerts")
    func deterministic() {
        let base = at(3, 1000, nil)
        let one = at(8, 2000, base.state)
        let two = at(8, 2000, base.state)
        #expect(one.events == two.events && one.state == two.state)
        #expect(one.events.map(\.eventId) == one.events.map { "9:\($0.seq)" })
    }

    @Test("an older snapshot (fewer balls, or the same balls polled earlier) never moves the display back")
    func outOfOrder() {
        let newer = at(8, 3000, nil)
        let older = at(6, 4000, newer.state)
        #expect(older.disposition == .stale && older.events.isEmpty)
        #expect(older.state.displayState == newer.state.displayState)
        let earlierPoll = at(8, 2000, newer.state, status: .inningsBreak)
        #expect(earlierPoll.disposition == .stale)
        let laterPoll = at(8, 5000, newer.state, status: .inningsBreak)
        #expect(laterPoll.disposition == .accepted && laterPoll.state.displayState?.matchDisplayState == .inningsBreak)
        // Once ended, a stray in-play snapshot of the same balls is ignored.
        let ended = at(8, 6000, laterPoll.state, status: .finished)
        let stray = at(8, 7000, ended.state, status: .innings(1))
        #expect(stray.disposition == .stale && stray.state.phase == .ended)
    }

    @Test("a corrected ball recomputes totals and lines, is reported, and is not announced again")
    func correction() throws {
        let before = at(6, 1000, nil)
        var corrected = Array(Self.balls.prefix(6))
        corrected[0].score = F.score(.four)          // the first ball was a four, not a single
        corrected[0].scoreId = corrected[0].score.id
        let outcome = detector.process(fixture: F.fixture(corrected), matchId: "9", polledAt: 2000, state: before.state)
        #expect(outcome.disposition == .accepted)
        #expect(outcome.correctedBallIds == [corrected[0].id])
        #expect(outcome.detected.allSatisfy { $0.kind == .runs })
        let display = try #require(outcome.state.displayState)
        #expect(display.compactLeading.score == "16/1")
        #expect(display.lockScreen.headline.hasPrefix("AUS 16/1"))
    }

    @Test("an unknown status string is reported, keeps the previous phase and does not crash")
    func unknownStatus() {
        let live = at(4, 1000, nil)
        let odd = at(5, 2000, live.state, status: .unknown("Drinks"))
        #expect(odd.unknownStatus == "Drinks")
        #expect(odd.disposition == .accepted && odd.state.phase == .live)
        #expect(odd.detected.contains { $0.kind == .wicket })
    }

    @Test("cooldowns silence a second wicket within 60 s but still emit it; other kinds still alert")
    func cooldowns() {
        let wickets = F.balls(Self.specs([.out("Clean Bowled"), .out("Clean Bowled", fielder: nil), .runs(0), .out("LBW OUT")],
                                         bowler: 104).enumerated().map { i, s in
            F.Spec(bowler: i == 1 ? 105 : 104, striker: s.striker, nonStriker: s.nonStriker, outcome: s.outcome)
        })
        var state: DetectorState?
        var priorities: [Int] = []
        for (count, time) in [(1, 0), (2, 40_000), (3, 80_000), (4, 120_000)] {
            let outcome = detector.process(fixture: F.fixture(Array(wickets.prefix(count))), matchId: "9",
                                           polledAt: 1_000_000 + Int64(time), state: state)
            priorities += outcome.events.compactMap { $0.keyEvent?.kind == .wicket ? $0.keyEvent?.priority : nil }
            state = outcome.state
        }
        // 1st alerts; 2nd 40 s later is silent; 3rd 120 s after the 1st alerts again.
        #expect(priorities == [10, 5, 10])
        let expiry: Int64 = 1_000_000 + 120_000 + 60_000
        #expect(state?.cooldowns["wicket"] == expiry)
        let quiet = MatchDetector(configuration: .noCooldowns)
        var free: DetectorState?
        var all: [Int] = []
        for count in 1...4 {
            let outcome = quiet.process(fixture: F.fixture(Array(wickets.prefix(count))), matchId: "9",
                                        polledAt: 1_000_000 + Int64(count) * 40_000, state: free)
            all += outcome.events.compactMap { $0.keyEvent?.kind == .wicket ? $0.keyEvent?.priority : nil }
            free = outcome.state
        }
        #expect(all == [10, 10, 10])
    }

    @Test("first sight of a match under way announces only the newest deliveries")
    func bootstrap() {
        let outcome = at(10, 1000, nil)
        let ballKeys = outcome.detected.compactMap(\.ballId)
        #expect(ballKeys.allSatisfy { $0 > Self.balls[3].id })
        #expect(!outcome.detected.contains { $0.key == "four:\(Self.balls[1].id)" })
        #expect(outcome.detected.contains { $0.key == "wicket:\(Self.balls[4].id)" })
    }

    @Test("the dismissal line of a wicket: batter, fielder and bowler, runs (balls)")
    func dismissalLine() throws {
        var outcomes: [F.Outcome] = Array(repeating: .four, count: 9) + Array(repeating: .runs(3), count: 3)
        outcomes += Array(repeating: .runs(0), count: 19)
        outcomes.append(.out("Catch Out", fielder: 103))
        let specs = outcomes.map { F.Spec(bowler: 104, striker: 101, nonStriker: 102, outcome: $0) }
        let balls = F.balls(specs, team: 1)
        let previous = detector.process(fixture: F.fixture(Array(balls.dropLast())), matchId: "9", polledAt: 1, state: nil)
        let outcome = detector.process(fixture: F.fixture(balls), matchId: "9", polledAt: 2, state: previous.state)
        let wicket = try #require(outcome.events.first { $0.keyEvent?.kind == .wicket })
        #expect(wicket.keyEvent?.alert?.body == "Rohit Sharma c Kohli b Bumrah 45 (32)")
        #expect(wicket.keyEvent?.alert?.title == "Wicket! IND 45/1 (5.2)")
        #expect(wicket.displayState.lockScreen.footer == "Wicket! IND 45/1 (5.2) · Rohit Sharma c Kohli b Bumrah 45 (32)")
    }

    @Test("a catch-up of several balls: every event's footer names the latest event and the latest score (issue 16)")
    func catchUpFooterIsTheLatestEvent() throws {
        var outcomes: [F.Outcome] = Array(repeating: .runs(1), count: 12)
        let before = outcomes.count
        outcomes += [.four, .six, .out("Clean Bowled"), .runs(0), .four]
        let balls = F.balls(outcomes.map { F.Spec(bowler: 104, striker: 101, nonStriker: 102, outcome: $0) }, team: 1)
        let previous = detector.process(fixture: F.fixture(Array(balls.prefix(before))), matchId: "9", polledAt: 1, state: nil)
        let outcome = detector.process(fixture: F.fixture(balls), matchId: "9", polledAt: 2, state: previous.state)
        let lastFour = try #require(outcome.detected.last { $0.kind == .four })
        #expect(lastFour.ballId == balls.last?.id, "the last ball is the four")
        #expect(outcome.events.count >= 3, "the four, the six and the wicket are emitted: \(outcome.events.count)")
        for event in outcome.events {
            #expect(event.displayState.lockScreen.footer == lastFour.line,
                    "footer \(event.displayState.lockScreen.footer) names the latest event \(lastFour.line)")
        }
        // The latest score: 12 singles + 4 + 6 + 0 + 4 = 26 for 1 wicket, in the headline and in the footer.
        let headline = try #require(outcome.events.last?.displayState.lockScreen.headline)
        #expect(headline.contains("26/1"), "\(headline)")
        #expect(lastFour.line.contains("26/1"), "the footer quotes the latest score: \(lastFour.line)")
    }
}

import Contracts
import Cricket
import Testing
@testable import Detection

/// Hat-trick = three consecutive deliveries by the same bowler (his own deliveries, wides and no-balls
/// included, in order) each taking a wicket credited to him; other bowlers' deliveries in between do not count.
@Suite("Hat-trick")
struct HatTrickTests {
    typealias F = FixtureFactory
    static let bumrah = 104, siraj = 105

    static func over(_ bowler: Int, _ outcomes: [F.Outcome]) -> [F.Spec] {
        outcomes.map { F.Spec(bowler: bowler, striker: 201, nonStriker: 202, outcome: $0) }
    }
    static let dots = [F.Outcome](repeating: .runs(0), count: 6)

    /// Runs the specs ball by ball through the detector; returns every detected event and bus event.
    static func run(_ specs: [F.Spec], configuration: DetectionTuning = .noCooldowns) -> ([DetectedEvent], [MatchBusEvent]) {
        let balls = F.balls(specs)
        let detector = MatchDetector(configuration: configuration)
        var state: DetectorState?
        var detected: [DetectedEvent] = [], events: [MatchBusEvent] = []
        for count in 0...balls.count {
            let outcome = detector.process(fixture: F.fixture(Array(balls.prefix(count))), matchId: "9",
                                           polledAt: 1_000_000 + Int64(count) * 40_000, state: state)
            detected += outcome.detected
            events += outcome.events
            state = outcome.state
        }
        return (detected, events)
    }

    @Test("spans overs: last ball of one over, first two of his next; alerts once, as a hat-trick")
    func spansOvers() {
        let specs = Self.over(Self.bumrah, Array(Self.dots.prefix(5)) + [.out("Clean Bowled")])
            + Self.over(Self.siraj, Self.dots)
            + Self.over(Self.bumrah, [.out("Catch Out", fielder: 203), .out("LBW OUT"), .runs(0)])
        let (detected, events) = Self.run(specs)
        #expect(detected.filter { $0.kind == .hatTrick }.count == 1)
        #expect(detected.filter { $0.kind == .wicket }.count == 3)
        let hatTrick = try! #require(events.first { $0.keyEvent?.kind == .hatTrick })
        #expect(hatTrick.keyEvent?.priority == 10)
        #expect(hatTrick.keyEvent?.alert?.title == "Hat-trick! Jasprit Bumrah")
        // The wicket on the same delivery is emitted too, silently (one buzz per delivery).
        let sameBall = events.filter { $0.seq == hatTrick.seq - 1 }
        #expect(sameBall.first?.keyEvent?.kind == .wicket && sameBall.first?.keyEvent?.priority == 5)
    }

    @Test("other bowlers' wickets in between do not break it")
    func otherBowlerWickets() {
        let specs = Self.over(Self.bumrah, Array(Self.dots.prefix(5)) + [.out("Clean Bowled")])
            + Self.over(Self.siraj, [.out("Clean Bowled"), .runs(0), .runs(0), .runs(0), .runs(0), .runs(0)])
            + Self.over(Self.bumrah, [.out("Clean Bowled"), .out("Stump Out", fielder: 103)])
        let (detected, _) = Self.run(specs)
        #expect(detected.filter { $0.kind == .hatTrick }.count == 1)
    }

    @Test("a wide, a no-ball or a run out in between breaks it")
    func brokenByDeliveries() {
        for breaker: F.Outcome in [.wide(1), .noBall(bat: 0), .out("Run Out"), .runs(1)] {
            let specs = Self.over(Self.bumrah, [.out("Clean Bowled"), .out("Clean Bowled"), breaker, .out("Clean Bowled"),
                                                .runs(0), .runs(0), .runs(0)])
            let (detected, _) = Self.run(specs)
            #expect(detected.filter { $0.kind == .hatTrick }.isEmpty, "\(breaker)")
        }
    }

    @Test("four in four is one hat-trick")
    func fourInFour() {
        let four = Self.over(Self.bumrah, [.out("Clean Bowled"), .out("Clean Bowled"), .out("Clean Bowled"),
                                           .out("Clean Bowled"), .runs(0), .runs(0)])
        #expect(Self.run(four).0.filter { $0.kind == .hatTrick }.count == 1)
    }

    @Test("the same balls in one snapshot or ball by ball give the same events")
    func batchEqualsIncremental() {
        let specs = Self.over(Self.bumrah, Array(Self.dots.prefix(5)) + [.out("Clean Bowled")])
            + Self.over(Self.siraj, Self.dots) + Self.over(Self.bumrah, [.out("Clean Bowled"), .out("Clean Bowled")])
        let incremental = Self.run(specs).0.filter { $0.kind != .runs && $0.kind != .matchStart }.map(\.key)
        let detector = MatchDetector(configuration: .noCooldowns)
        let empty = detector.process(fixture: F.fixture([]), matchId: "9", polledAt: 1, state: nil)
        let batch = detector.process(fixture: F.fixture(F.balls(specs)), matchId: "9", polledAt: 2, state: empty.state)
        #expect(batch.detected.filter { $0.kind != .runs }.map(\.key) == incremental)
        #expect(batch.events.filter { $0.keyEvent?.priority == 10 }.count == 1)
    }
}

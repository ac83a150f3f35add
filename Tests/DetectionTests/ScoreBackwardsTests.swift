import Contracts
import Cricket
import CricsheetReplay
import Detection
import SharedTestSupport
import Testing

/// A feed response whose total went backwards with no ball changed (the fault suite's `score_backwards`) changes
/// nothing: live it would put an older score on the Lock Screen, and at the finish it ended every Live Activity of the
/// IPL 2024 final on "KKR 109/2 (10.3)" instead of 114/2 (a CI run of the match day, session 24).
@Suite struct ScoreBackwardsTests {
    static let match = 1426312

    /// Five runs off the newest `runs` row, as the fake feed's fault does.
    static func lowered(_ fixture: SportMonksFixture) -> SportMonksFixture {
        var fixture = fixture
        if var runs = fixture.runs, let last = runs.indices.last {
            runs[last].score = max(0, runs[last].score - 5)
            fixture.runs = runs
        }
        return fixture
    }

    @Test("live: the same balls with a lower total are ignored, the state kept; the next real snapshot is taken")
    func live() throws {
        let builder = SportMonksFixtureBuilder(match: try DataDirectory.match(Self.match))
        let detector = MatchDetector(configuration: .noCooldowns)
        let first = detector.process(fixture: builder.fixture(at: .inProgress(100)), matchId: "m", polledAt: 1_000_000, state: nil)
        let backwards = detector.process(fixture: Self.lowered(builder.fixture(at: .inProgress(100))), matchId: "m",
                                         polledAt: 1_005_000, state: first.state)
        #expect(backwards.disposition == .scoreBackwards && backwards.events.isEmpty)
        #expect(backwards.state.displayState == first.state.displayState && backwards.state.lastPolledAt == first.state.lastPolledAt)
        let next = detector.process(fixture: builder.fixture(at: .inProgress(101)), matchId: "m", polledAt: 1_010_000, state: backwards.state)
        #expect(next.disposition == .accepted)
    }

    @Test("at the finish: a finished snapshot with a lower total does not end the match on it; the real one does")
    func atTheFinish() throws {
        let match = try DataDirectory.match(Self.match)
        let builder = SportMonksFixtureBuilder(match: match)
        let detector = MatchDetector(configuration: .noCooldowns)
        let last = detector.process(fixture: builder.fixture(at: .inProgress(match.totalDeliveries)), matchId: "m",
                                    polledAt: 1_000_000, state: nil)
        let finished = ReplayPosition(deliveries: match.totalDeliveries, phase: .finished)
        let backwards = detector.process(fixture: Self.lowered(builder.fixture(at: finished)), matchId: "m", polledAt: 1_005_000,
                                         state: last.state)
        #expect(backwards.disposition == .scoreBackwards && backwards.events.isEmpty)
        let real = detector.process(fixture: builder.fixture(at: finished), matchId: "m", polledAt: 1_010_000, state: backwards.state)
        #expect(real.disposition == .accepted && real.events.last?.phase == .ended)
        let headline = try #require(real.events.last?.displayState.lockScreen.headline)
        #expect(headline.contains("114/2"), "\(headline)")
    }
}

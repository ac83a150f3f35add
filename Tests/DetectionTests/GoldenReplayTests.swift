import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Foundation
import Testing
@testable import Detection

/// Every Cricsheet match replayed ball by ball (the fixtures fake-sportmonks serves) through the real detector.
@Suite("Golden replay")
struct GoldenReplayTests {
    static let countedKinds: [KeyEventKind] = [.wicket, .four, .six, .fifty, .hundred, .fiveFor, .hatTrick]

    struct Replay {
        var detected: [DetectedEvent] = []
        var events: [MatchBusEvent] = []
        var state: DetectorState?
    }

    static func replay(_ match: CricsheetMatch, configuration: DetectionTuning = .init()) -> Replay {
        let builder = SportMonksFixtureBuilder(match: match)
        let detector = MatchDetector(configuration: configuration)
        var result = Replay()
        for (index, position) in match.replayTimeline().enumerated() {
            let fixture = builder.fixture(at: position)
            let outcome = detector.process(fixture: fixture, matchId: "\(match.id)",
                                           polledAt: 1_800_000_000_000 + Int64(index) * 40_000, state: result.state)
            #expect(outcome.disposition == .accepted, "\(match.id) at \(position)")
            // la-coordinator ends every activity on the first `.ended` event: in the snapshot that ends
            // the match, only its last event may carry `.ended`, so earlier alerts still reach followers.
            if result.state?.phase != .ended, let firstEnded = outcome.events.firstIndex(where: { $0.phase == .ended }) {
                #expect(firstEnded == outcome.events.count - 1, "\(match.id): an event follows the ending one")
            }
            result.detected += outcome.detected
            result.events += outcome.events
            result.state = outcome.state
        }
        return result
    }

    @Test("event counts per innings equal the Cricsheet counts; final display shows the real scores and result",
          arguments: DataDirectory.matchIds)
    func golden(matchId: Int) throws {
        let match = try DataDirectory.match(matchId)
        let expected = CricsheetCounts(raw: try DataDirectory.raw(matchId))
        let replay = Self.replay(match)

        for kind in Self.countedKinds {
            var actual: [String: Int] = [:]
            for event in replay.detected where event.kind == kind { actual[event.scoreboard ?? "?", default: 0] += 1 }
            #expect(actual == (expected.counts[kind.rawValue] ?? [:]), "\(matchId) \(kind.rawValue)")
        }
        // Nothing is announced twice, seqs are consecutive and eventIds unique.
        let keys = replay.detected.map(\.key)
        #expect(Set(keys).count == keys.count, "\(matchId): duplicate event keys")
        #expect(replay.events.map(\.seq) == Array(1...Int64(replay.events.count)))
        #expect(replay.events.filter { $0.keyEvent != nil }.count == replay.detected.count)

        let display = try #require(replay.state?.displayState)
        #expect(display.matchDisplayState == .ended)
        #expect(display.resultLine == ExpectedResultLine.of(match), "\(matchId)")
        let shown = [display.expanded.batting, display.expanded.bowling]
        for (team, score) in expected.finalScores {
            let line = try #require(shown.first { $0.name == team }, "\(matchId): \(team) not shown")
            #expect(line.score == score, "\(matchId) \(team)")
        }
        #expect(replay.detected.filter { $0.kind == .result }.count == 1)
        let last = try #require(replay.events.last)
        #expect(last.phase == .ended && last.keyEvent?.kind == .result && last.keyEvent?.priority == 10)
    }
}

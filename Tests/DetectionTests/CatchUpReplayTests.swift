import SharedTestSupport
import Contracts
import CricsheetReplay
import Cricket
import Foundation
import Testing
@testable import Detection

/// Catch-ups across breaks (issue 32): a poller that falls behind (an outage, a slow poll at 30 deliveries a second)
/// sees one snapshot holding the end of an innings and the first balls of the next. Every ball of it must still
/// yield its events, whatever the step and wherever it falls.
@Suite("Catch-up across innings changes")
struct CatchUpReplayTests {
    /// The replay timeline polled every `step` positions, so most innings changes fall inside one snapshot (the
    /// break itself is never seen when `skipBreaks`), then the final position.
    static func positions(_ match: CricsheetMatch, step: Int, offset: Int, skipBreaks: Bool) -> [ReplayPosition] {
        let timeline = match.replayTimeline().filter { !skipBreaks || !$0.isBreak }
        var chosen = stride(from: offset, to: timeline.count, by: step).map { timeline[$0] }
        if chosen.last != timeline.last, let last = timeline.last { chosen.append(last) }
        return [timeline[0]] + chosen.filter { $0 != timeline[0] }
    }

    /// Replays `positions` through the poller → Kafka → detector transport (bounded pages, `BallChains`) and the
    /// detector, as the service does.
    static func replay(_ match: CricsheetMatch, positions: [ReplayPosition]) throws -> [DetectedEvent] {
        let builder = SportMonksFixtureBuilder(match: match)
        let detector = MatchDetector()
        var transport = ChainTransport(matchId: "\(match.id)")
        var state: DetectorState?
        var detected: [DetectedEvent] = []
        for (index, position) in positions.enumerated() {
            let polledAt = 1_800_000_000_000 + Int64(index) * 40_000
            let fixture = try #require(try transport.send(builder.fixture(at: position), polledAt: polledAt))
            let outcome = detector.process(fixture: fixture, matchId: "\(match.id)", polledAt: polledAt, state: state)
            detected += outcome.detected
            state = outcome.state
        }
        return detected
    }

    @Test("large catch-up steps across every innings boundary lose no event",
          arguments: [(1152848, 29), (1426557, 31), (1144530, 17), (1216517, 5), (1417822, 13), (1355593, 11), (1384429, 23)])
    func largeSteps(matchId: Int, step: Int) throws {
        let match = try DataDirectory.match(matchId)
        let expected = CricsheetCounts(raw: try DataDirectory.raw(matchId))
        // Two phases of the step: snapshots that never see a break, and snapshots that sometimes do.
        for (offset, skipBreaks) in [(1, true), (step / 2, false)] {
            do {
                let detected = try Self.replay(match, positions: Self.positions(match, step: step, offset: offset, skipBreaks: skipBreaks))
                for kind in GoldenReplayTests.countedKinds {
                    var actual: [String: Int] = [:]
                    for event in detected where event.kind == kind { actual[event.scoreboard ?? "?", default: 0] += 1 }
                    #expect(actual == (expected.counts[kind.rawValue] ?? [:]),
                            "\(matchId) step \(step) offset \(offset) skipBreaks \(skipBreaks): \(kind.rawValue)")
                }
                let keys = detected.map(\.key)
                #expect(Set(keys).count == keys.count, "\(matchId): duplicate event keys")
            }
        }
    }
}

import SharedTestSupport
import Testing
import ClientCore
import Contracts
import Synchronization
import Runtime

/// Collects `ClientEvent`s.
final class EventRecorder: Sendable {
    private let events = LockedValue<[ClientEvent]>([])
    var sink: ClientEventSink { ClientEventSink { [self] event in self.record(event) } }
    private func record(_ event: ClientEvent) { events.withLock { $0.append(event) } }
    var all: [ClientEvent] { events.withLock { $0 } }
}

/// Collects `LifecycleEvent`s in a comparable form.
final class LifecycleRecorder: Sendable {
    private let events = LockedValue<[String]>([])
    var handler: @Sendable (LifecycleEvent) async -> Void {
        { [self] event in
            let text: String
            switch event {
            case .started(let handle, let origin): text = "started \(handle.matchId) \(handle.id) \(origin.rawValue)"
            case .ended(let matchId, let activityId, let reason): text = "ended \(matchId) \(activityId) \(reason.rawValue)"
            case .dismissedByUser(let matchId, let activityId): text = "dismissed \(matchId) \(activityId)"
            case .startFailed(let matchId): text = "startFailed \(matchId)"
            }
            self.record(text)
        }
    }
    private func record(_ text: String) { events.withLock { $0.append(text) } }
    var all: [String] { events.withLock { $0 } }
}

/// A display state of `matchId` whose data is from `updatedAt` and whose headline says `score`.
func displayState(_ matchId: String = "m1", updatedAt: Int64 = 1_800_000_000, score: String = "87/6") -> UnifiedDisplayState {
    let team = UnifiedDisplayState.TeamScore(abbr: "IND", name: "India", score: score, overs: "12.3")
    let other = UnifiedDisplayState.TeamScore(abbr: "AUS", name: "Australia", score: "", overs: "")
    return UnifiedDisplayState(
        matchId: matchId, matchDisplayState: .live, title: "India vs Australia", subtitle: "1st T20I",
        statusText: "IND batting", compactLeading: .init(teamAbbr: "IND", score: score),
        compactTrailing: .init(overs: "12.3", runRate: "6.96"), minimal: .init(text: score),
        expanded: .init(
            batting: team, bowling: other, batters: [], bowler: nil, lastBalls: [], target: nil, equation: nil,
            runRate: "RR 6.96", requiredRate: nil),
        lockScreen: .init(headline: "IND \(score) (12.3)", detail: "", footer: "IND batting"), resultLine: nil,
        updatedAt: updatedAt)
}

/// Update token the in-memory ActivityKit issues for an activity id.
func tokenFor(_ activityId: String) -> String { "tok-\(activityId)" }

/// Expects `condition` to hold (polled every 5 ms, for up to 30 s).
func expectEventually(
    _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation, _ condition: @Sendable () async -> Bool
) async {
    // A generous bound: a passing condition returns at once, and phase 1 of scripts/test runs every suite at once on
    // two cores (a 2 s bound failed there).
    let reached = await eventually(within: .seconds(30), every: .milliseconds(5), condition)
    #expect(reached, comment, sourceLocation: sourceLocation)
}

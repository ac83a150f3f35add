import Foundation
import Synchronization
import Runtime

/// One simulated Live Activity of `InMemoryActivityKit`: holds its state, content and update
/// token, and lets a simulator act as the system (rotate the token, user swipe-to-dismiss).
public final class InMemoryActivity: LiveActivityHandle {
    private struct State {
        var activityState: ActivityState = .active
        var content: ActivityContent
        var token: String?
        var dismissalPolicy: ActivityDismissalPolicy?
        var updateCount = 0
    }

    public let id: String
    public let matchId: String
    /// True when the system created it from a push-to-start, false for a local request.
    public let startedByPush: Bool
    private let state: LockedValue<State>
    private let tokens = Broadcast<String>()
    private let states = Broadcast<ActivityState>()

    /// The broadcast channel it subscribed to (no update token then).
    public let channelId: String?

    init(id: String, matchId: String, content: ActivityContent, startedByPush: Bool, channelId: String? = nil) {
        self.id = id
        self.matchId = matchId
        self.startedByPush = startedByPush
        self.channelId = channelId
        state = LockedValue(State(content: content))
    }

    public var pushTokenUpdates: AsyncStream<String> {
        tokens.stream(initial: state.withLock { $0.token }.map { [$0] } ?? [])
    }

    public var activityStateUpdates: AsyncStream<ActivityState> { states.stream() }

    public func state() async -> ActivityState { currentState }

    public func content() async -> ActivityContent { currentContent }

    public func update(_ content: ActivityContent) async {
        state.withLock { state in
            guard state.activityState == .active else { return }
            state.content = content
            state.updateCount += 1
        }
    }

    public func end(_ content: ActivityContent?, dismissalPolicy: ActivityDismissalPolicy) async {
        let changed = state.withLock { state -> Bool in
            guard state.activityState == .active || state.activityState == .stale else { return false }
            if let content { state.content = content }
            state.activityState = dismissalPolicy == .immediate ? .dismissed : .ended
            state.dismissalPolicy = dismissalPolicy
            return true
        }
        guard changed else { return }
        states.yield(.ended)
        if dismissalPolicy == .immediate { states.yield(.dismissed) }
    }

    // MARK: - The system's side

    /// The current `ActivityState`.
    public var currentState: ActivityState { state.withLock { $0.activityState } }
    /// What the activity shows now.
    public var currentContent: ActivityContent { state.withLock { $0.content } }
    /// The current update token, once issued.
    public var currentToken: String? { state.withLock { $0.token } }
    /// How many updates were applied.
    public var updateCount: Int { state.withLock { $0.updateCount } }
    /// The dismissal policy it ended with, if ended.
    public var endedWith: ActivityDismissalPolicy? { state.withLock { $0.dismissalPolicy } }

    /// Issues (or rotates to) `token`: `pushTokenUpdates` fires.
    public func issueToken(_ token: String) {
        state.withLock { $0.token = token }
        tokens.yield(token)
    }

    /// The user swipes the activity away (or the system removes an ended one).
    public func dismissByUser() {
        let changed = state.withLock { state -> Bool in
            guard state.activityState != .dismissed else { return false }
            state.activityState = .dismissed
            return true
        }
        if changed { states.yield(.dismissed) }
    }
}

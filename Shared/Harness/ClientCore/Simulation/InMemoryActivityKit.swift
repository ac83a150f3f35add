import Synchronization
import Runtime

/// A stand-in for ActivityKit (the "system" side) for simulated devices and tests: creates
/// activities on request or on push-to-start, issues update tokens, keeps activities across a
/// simulated relaunch (reuse the instance), and honours the Live Activities permission switch.
public final class InMemoryActivityKit: ActivityKitPort {
    private struct State {
        var enabled = true
        var activities: [String: InMemoryActivity] = [:]
        var order: [String] = []
        var nextId = 1
        var pushToStartToken: String?
        var requestCount = 0
    }

    private let state = LockedValue(State())
    private let created = Broadcast<any LiveActivityHandle>()
    private let pushToStart = Broadcast<String>()
    private let tokenFactory: @Sendable (String) -> String?

    /// `tokenFactory` gives the update token issued right after an activity with this id is
    /// created (nil: none until `InMemoryActivity.issueToken`).
    public init(tokenFactory: @escaping @Sendable (String) -> String? = { _ in nil }) {
        self.tokenFactory = tokenFactory
    }

    public func areActivitiesEnabled() async -> Bool { enabled }

    public func request(matchId: String, content: ActivityContent, pushType: ActivityPushType) async throws
        -> any LiveActivityHandle
    {
        guard enabled else { throw ActivityRequestError.disabled(matchId: matchId) }
        state.withLock { $0.requestCount += 1 }
        let channel: String? = if case .channel(let id) = pushType { id } else { nil }
        return create(matchId: matchId, content: content, byPush: false, channelId: channel)
    }

    public func activities() async -> [any LiveActivityHandle] { allActivities }

    public var activityUpdates: AsyncStream<any LiveActivityHandle> { created.stream() }

    public var pushToStartTokenUpdates: AsyncStream<String> {
        pushToStart.stream(initial: state.withLock { $0.pushToStartToken }.map { [$0] } ?? [])
    }

    // MARK: - The system's side

    /// The Live Activities switch in Settings.
    public var enabled: Bool {
        get { state.withLock { $0.enabled } }
        set { state.withLock { $0.enabled = newValue } }
    }

    /// Every activity ever created, oldest first (ended and dismissed ones included).
    public var allActivities: [InMemoryActivity] {
        state.withLock { state in state.order.compactMap { state.activities[$0] } }
    }

    /// Activities of `matchId`, oldest first.
    public func activities(matchId: String) -> [InMemoryActivity] {
        allActivities.filter { $0.matchId == matchId }
    }

    /// How many times the app called `request`.
    public var requestCount: Int { state.withLock { $0.requestCount } }

    /// A push-to-start arrived: the system creates the activity (when enabled) and
    /// `activityUpdates` fires. Returns nil when Live Activities are disabled.
    @discardableResult
    public func startFromPush(matchId: String, content: ActivityContent, channelId: String? = nil) -> InMemoryActivity? {
        guard enabled else { return nil }
        return create(matchId: matchId, content: content, byPush: true, channelId: channelId)
    }

    /// The system (re)issues the push-to-start token; `times: 2` models the double fire.
    public func issuePushToStartToken(_ token: String, times: Int = 1) {
        state.withLock { $0.pushToStartToken = token }
        for _ in 0..<max(1, times) { pushToStart.yield(token) }
    }

    private func create(matchId: String, content: ActivityContent, byPush: Bool, channelId: String? = nil) -> InMemoryActivity {
        let activity = state.withLock { state in
            let activity = InMemoryActivity(
                id: "activity-\(state.nextId)", matchId: matchId, content: content, startedByPush: byPush, channelId: channelId)
            state.nextId += 1
            state.activities[activity.id] = activity
            state.order.append(activity.id)
            return activity
        }
        // A channel activity gets no update token (ActivityKit takes one push type).
        if channelId == nil, let token = tokenFactory(activity.id) { activity.issueToken(token) }
        if byPush { created.yield(activity) }
        return activity
    }
}

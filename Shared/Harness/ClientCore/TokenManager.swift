/// Owns Live Activity tokens (seeds: `LiveActivityTokenManager`): observes the push-to-start and
/// per-activity update token streams, drops tokens equal to the last one sent (the system's double
/// fire, unchanged rotations), posts new or rotated tokens with bounded retries, and caches the
/// last sent token per match so nothing is posted twice.
public actor TokenManager {
    private let deviceId: String
    private let api: any BackendAPI
    private let notifications: NotificationService
    private let retry: RetryPolicy
    private let clock: any ClientClock
    private let events: ClientEventSink

    private var lastSentPushToStart: String?
    private var pushToStartInFlight: String?
    private var lastSentUpdateTokens: [String: String] = [:]
    private var updateTokensInFlight: [String: String] = [:]
    private var observers: [String: Task<Void, Never>] = [:]

    private static let pushToStartObserver = "push-to-start"

    public init(
        deviceId: String, api: any BackendAPI, notifications: NotificationService, retry: RetryPolicy,
        clock: any ClientClock, events: ClientEventSink = .none
    ) {
        self.deviceId = deviceId
        self.api = api
        self.notifications = notifications
        self.retry = retry
        self.clock = clock
        self.events = events
    }

    /// Starts observing `Activity.pushToStartTokenUpdates` (replaces an earlier observer).
    public func observePushToStartTokens(_ tokens: AsyncStream<String>) {
        startObserver(Self.pushToStartObserver) { manager in
            for await token in tokens { _ = await manager.handlePushToStartToken(token) }
        }
    }

    /// Starts observing `activity.pushTokenUpdates` of one activity (once per activity id).
    public func observeUpdateTokens(of activity: any LiveActivityHandle) {
        guard observers[activity.id] == nil else { return }
        let matchId = activity.matchId
        let tokens = activity.pushTokenUpdates
        startObserver(activity.id) { manager in
            for await token in tokens { _ = await manager.handleUpdateToken(token, matchId: matchId) }
        }
    }

    /// A channel activity runs: tells the backend once (with retries) which channel it subscribed to.
    @discardableResult
    public func reportChannel(_ channelId: String, matchId: String) async -> TokenOutcome {
        let api = self.api
        let deviceId = self.deviceId
        let outcome = await retry.run(clock: clock) {
            try await api.postActivityChannel(matchId: matchId, channelId: channelId, deviceId: deviceId)
        }
        return report(outcome, kind: .update, matchId: matchId, token: channelId)
    }

    /// Stops observing an activity's tokens (it ended).
    public func stopObserving(activityId: String) {
        observers.removeValue(forKey: activityId)?.cancel()
    }

    /// Cancels every observer.
    public func stopAll() {
        for task in observers.values { task.cancel() }
        observers = [:]
    }

    /// Waits until every current observer has finished (its stream ended or it was cancelled).
    public func waitForObservers() async {
        for task in Array(observers.values) { await task.value }
    }

    /// The update token last posted for `matchId`.
    public func lastSentToken(matchId: String) -> String? { lastSentUpdateTokens[matchId] }

    /// The push-to-start token last registered.
    public var lastSentPushToStartToken: String? { lastSentPushToStart }

    /// Handles one push-to-start token value: registers it through `POST /devices` unless unchanged.
    public func handlePushToStartToken(_ token: String) async -> TokenOutcome {
        guard token != lastSentPushToStart, token != pushToStartInFlight else {
            events.emit(.tokenDuplicateDropped(kind: .pushToStart, matchId: nil, token: token))
            return .duplicate
        }
        pushToStartInFlight = token
        let outcome = await notifications.updatePushToStartToken(token)
        if pushToStartInFlight == token { pushToStartInFlight = nil }
        if outcome.succeeded { lastSentPushToStart = token }
        return report(outcome, kind: .pushToStart, matchId: nil, token: token)
    }

    /// Handles one update token value of `matchId`: posts it unless it equals the last one sent.
    public func handleUpdateToken(_ token: String, matchId: String) async -> TokenOutcome {
        guard token != lastSentUpdateTokens[matchId], token != updateTokensInFlight[matchId] else {
            events.emit(.tokenDuplicateDropped(kind: .update, matchId: matchId, token: token))
            return .duplicate
        }
        updateTokensInFlight[matchId] = token
        let api = self.api
        let deviceId = self.deviceId
        let outcome = await retry.run(clock: clock) {
            try await api.postActivityToken(matchId: matchId, token: token, deviceId: deviceId)
        }
        if updateTokensInFlight[matchId] == token { updateTokensInFlight[matchId] = nil }
        if outcome.succeeded { lastSentUpdateTokens[matchId] = token }
        return report(outcome, kind: .update, matchId: matchId, token: token)
    }

    private func report(_ outcome: RetryOutcome, kind: ClientTokenKind, matchId: String?, token: String) -> TokenOutcome {
        switch outcome {
        case .succeeded(let attempts):
            events.emit(.tokenPosted(kind: kind, matchId: matchId, token: token, attempts: attempts))
            return .posted(attempts: attempts)
        case .failed(let attempts, let reason):
            events.emit(.tokenPostFailed(kind: kind, matchId: matchId, token: token, attempts: attempts, reason: reason))
            return .failed(attempts: attempts, reason: reason)
        }
    }

    private func startObserver(_ key: String, _ body: @escaping @Sendable (TokenManager) async -> Void) {
        observers[key]?.cancel()
        observers[key] = Task { await body(self) }
    }
}

/// What happened to one observed token value.
public enum TokenOutcome: Sendable, Equatable {
    /// Posted, after this many attempts.
    case posted(attempts: Int)
    /// Equal to the last token sent (or being sent) for the same target: dropped.
    case duplicate
    /// Every attempt failed; the token stays unsent (a later identical value is tried again).
    case failed(attempts: Int, reason: String)
}

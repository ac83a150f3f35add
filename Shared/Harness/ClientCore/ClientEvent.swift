/// Something the client did, for a simulator's progress display and for tests (ClientCore does not log).
public enum ClientEvent: Sendable, Equatable {
    // Tokens.
    case tokenPosted(kind: ClientTokenKind, matchId: String?, token: String, attempts: Int)
    case tokenDuplicateDropped(kind: ClientTokenKind, matchId: String?, token: String)
    case tokenPostFailed(kind: ClientTokenKind, matchId: String?, token: String, attempts: Int, reason: String)
    // Follows.
    case followConfirmed(matchId: String)
    case followFailed(matchId: String, reason: String)
    case unfollowConfirmed(matchId: String)
    case unfollowQueued(matchId: String, reason: String)
    case followsSynced(matchIds: [String])
    // Activities.
    case activityStarted(matchId: String, activityId: String, origin: ActivityOrigin)
    case activityStartFailed(matchId: String, reason: String)
    case duplicateActivityEnded(matchId: String, activityId: String)
    case updateApplied(matchId: String, timestamp: Int64)
    case updateIgnored(matchId: String, timestamp: Int64, lastApplied: Int64)
    case activityEnded(matchId: String, activityId: String, reason: ActivityEndReason)
    case activityDismissedByUser(matchId: String, activityId: String, reported: Bool)
    // Launch.
    case bootstrapPhase(BootstrapPhase)
}

/// Which token a token event is about.
public enum ClientTokenKind: String, Sendable, Equatable {
    /// ActivityKit push-to-start token (registered through `POST /devices`).
    case pushToStart
    /// A per-activity update token (`POST /matches/:matchId/activity-token`).
    case update
    /// The standard APNs device token (`POST /devices`).
    case device
}

/// How an activity came to be tracked.
public enum ActivityOrigin: String, Sendable, Equatable {
    /// `Activity.request` by the app.
    case localRequest
    /// Created by the system from a push-to-start and adopted.
    case pushToStart
    /// Found alive at launch.
    case restored
}

/// Why the app saw an activity end.
public enum ActivityEndReason: String, Sendable, Equatable {
    /// An APNs `end` event (match over, or the backend ending it on unfollow elsewhere).
    case endEvent
    /// The user unfollowed on this device.
    case userUnfollow
    /// No update for 30 minutes.
    case stale
    /// The system ended it (outside the app's control).
    case system
    /// The user unfollowed or dismissed on another device; a background push asked this one to end its channel
    /// activity (the server cannot end it by push).
    case remoteEnd
}

/// Receives `ClientEvent`s; must be quick and non-blocking.
public struct ClientEventSink: Sendable {
    private let handler: @Sendable (ClientEvent) -> Void

    public init(_ handler: @escaping @Sendable (ClientEvent) -> Void) { self.handler = handler }

    /// Drops every event.
    public static let none = ClientEventSink { _ in }

    func emit(_ event: ClientEvent) { handler(event) }
}

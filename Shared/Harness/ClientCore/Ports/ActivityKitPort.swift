import Contracts
import Foundation

/// The part of ActivityKit the app uses, for the `SightscreenActivity` attributes (one match).
///
/// On iOS this wraps `Activity<SightscreenActivityAttributes>`; the simulator and tests use
/// `InMemoryActivityKit`. The two streams are consumed once per launch, by one observer each.
public protocol ActivityKitPort: Sendable {
    /// `ActivityAuthorizationInfo().areActivitiesEnabled`.
    func areActivitiesEnabled() async -> Bool
    /// `Activity.request(attributes:content:pushType: .token)`.
    func request(matchId: String, content: ActivityContent, pushType: ActivityPushType) async throws
        -> any LiveActivityHandle
    /// `Activity.activities`: every activity of this app that still exists (after a relaunch too).
    func activities() async -> [any LiveActivityHandle]
    /// `Activity.activityUpdates`: activities the system created (push-to-start) as they appear.
    var activityUpdates: AsyncStream<any LiveActivityHandle> { get }
    /// `Activity.pushToStartTokenUpdates`, as hex strings (the system may fire a value twice).
    var pushToStartTokenUpdates: AsyncStream<String> { get }
}

/// One Live Activity instance.
public protocol LiveActivityHandle: Sendable {
    /// `activity.id`.
    var id: String { get }
    /// The match of the activity's attributes.
    var matchId: String { get }
    /// `activity.pushTokenUpdates`, as hex strings; consumed once, by the token manager.
    var pushTokenUpdates: AsyncStream<String> { get }
    /// The broadcast channel the activity subscribed to (started `.channel(id)` or by a push with
    /// `input-push-channel`); nil for a token activity.
    var channelId: String? { get }
    /// `activity.activityStateUpdates`; consumed once, by the lifecycle manager.
    var activityStateUpdates: AsyncStream<ActivityState> { get }
    /// `activity.activityState`.
    func state() async -> ActivityState
    /// `activity.content`: what the activity currently shows.
    func content() async -> ActivityContent
    /// `activity.update(_:)`.
    func update(_ content: ActivityContent) async
    /// `activity.end(_:dismissalPolicy:)`; nil content keeps the current one.
    func end(_ content: ActivityContent?, dismissalPolicy: ActivityDismissalPolicy) async
}

/// Content of an activity: the content state and the APNs `timestamp` (epoch seconds) it came with.
public struct ActivityContent: Sendable, Equatable {
    public var state: UnifiedDisplayState
    /// Unix epoch seconds; updates carrying an older timestamp are ignored.
    public var timestamp: Int64

    public init(state: UnifiedDisplayState, timestamp: Int64) {
        self.state = state
        self.timestamp = timestamp
    }
}

/// `ActivityState`.
public enum ActivityState: String, Sendable, Equatable, CaseIterable {
    case active
    case ended
    case dismissed
    case stale
}

/// `ActivityUIDismissalPolicy`.
public enum ActivityDismissalPolicy: Sendable, Equatable {
    /// The system default (up to 4 hours on the Lock Screen).
    case `default`
    /// Removed at once.
    case immediate
    /// Removed at this instant (APNs `dismissal-date`).
    case after(Date)
}

/// `PushType`: a per-activity update token, or (iOS 18+) a broadcast channel (`.channel(id)`, no update token).
public enum ActivityPushType: Sendable, Equatable {
    case token
    case channel(String)
}

/// Why `ActivityKitPort.request` failed.
public enum ActivityRequestError: Error, Sendable, Equatable {
    /// Live Activities are disabled in Settings (or unsupported).
    case disabled(matchId: String)
    /// The system refused (e.g. too many activities).
    case refused(matchId: String, reason: String)
}

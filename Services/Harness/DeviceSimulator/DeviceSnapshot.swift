import Contracts

/// One device as `GET /devices` and `GET /devices/:deviceId` show it.
struct DeviceSnapshot: Codable, Sendable, Equatable {
    var deviceId: String
    var userId: String
    /// Locally followed matches, sorted.
    var follows: [String]
    /// The latest activity of each match (ended ones stay listed with their final content).
    var activities: [ActivitySnapshot]
    var pushesReceived: Int
    /// The last push, e.g. "update m1 @1710000000" (nil before any).
    var lastEvent: String?
    var startsReceived: Int
    var updatesReceived: Int
    var endsReceived: Int
    /// Pushes that are not Live Activity pushes (alerts to the device token) or were undecodable.
    var otherReceived: Int
    var liveActivitiesEnabled: Bool
    /// pending, ready, blocked or failed.
    var launch: String
    var deviceToken: String
    var pushToStartToken: String
    /// "channel" (iOS 18, a build on broadcast channels) or "token".
    var mode: String = "token"
    /// Broadcast copies received on its channel activities (counted in `updatesReceived`/`endsReceived` too).
    var channelCopiesReceived: Int = 0
    /// Copies of a broadcast this device had already received (0: one copy of each).
    var repeatedChannelCopies: Int = 0
    /// The latest pushes, newest first (the preview's timeline).
    var recentPushes: [PushRecord] = []
    /// The alert a priority-10 push raised, while iOS would still show it (nil otherwise).
    var banner: AlertBanner? = nil
}

/// One push as the device received it.
struct PushRecord: Codable, Sendable, Equatable {
    /// start, update, end, background end, alert, refused start, ignored.
    var kind: String
    /// The token it came on: push-to-start, token (an activity's update token), channel (a broadcast's copy), device.
    var via: String
    var priority: Int?
    /// Payload size in bytes.
    var bytes: Int
    /// mock-apns's acceptance minus the payload's `timestamp` (when its content was polled), ms.
    var ageMs: Int64?
    /// When the device applied it, Unix ms.
    var at: Int64
    var alertTitle: String?
    var alertBody: String?
}

/// An alert banner as iOS shows it for a few seconds.
struct AlertBanner: Codable, Sendable, Equatable {
    var title: String
    var body: String
    /// When it appeared, Unix ms.
    var shownAt: Int64
}

/// One Live Activity of a device.
struct ActivitySnapshot: Codable, Sendable, Equatable {
    var matchId: String
    var activityId: String
    /// active, ended, dismissed or stale.
    var state: String
    /// APNs timestamp of the content shown.
    var timestamp: Int64
    var contentState: UnifiedDisplayState
    var updateCount: Int
    /// The activity's update token.
    var token: String?
    /// True when it was created from a push-to-start.
    var startedByPush: Bool
    /// The broadcast channel it subscribed to (nil: a token activity).
    var channelId: String? = nil
}

/// `GET /status`: totals over every device.
struct FleetStatus: Codable, Sendable, Equatable {
    var devices: Int
    var devicesReady: Int
    var activitiesActive: Int
    var activitiesEnded: Int
    var pushesReceived: Int
    var startsReceived: Int
    var updatesReceived: Int
    var endsReceived: Int
    var otherReceived: Int
    var channelCopiesReceived: Int = 0
    /// Deliveries for tokens no device owns (other runs, other clients).
    var unrouted: Int
    /// The mock-apns sequence read up to.
    var cursor: Int
}

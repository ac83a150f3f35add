import DeliveryRecord

/// What support asks about one user, one device or one Live Activity, in one answer: the devices (tokens masked), each
/// activity's life (followed, started, update token registered, ended and why), its deliveries (totals, the last of each
/// kind, the recent ones, with APNs's answers) and the diagnosis's findings in plain words. Built by
/// `SupportReportReader`; printed by `sightscreen user|device|activity`, served as JSON by the api's admin support routes
/// and as a page (`SupportPage`).
public struct SupportReport: Codable, Sendable, Equatable {
    /// What was asked about.
    public enum Scope: String, Codable, Sendable {
        case user, device, activity
    }

    /// One device of the user.
    public struct Device: Codable, Sendable, Equatable {
        public var deviceId: String
        /// False when the device row is gone (deleted) but activities of it remain.
        public var registered: Bool
        public var apnsEnvironment: String?
        public var appVersion: String?
        public var osVersion: String?
        public var channelCapable: Bool?
        /// Masked (`TokenMask`).
        public var pushToken: String?
        public var pushToStartToken: String?
        /// ISO 8601.
        public var updatedAt: String?
        public var activities: [Activity]
    }

    /// The match of an activity.
    public struct Match: Codable, Sendable, Equatable {
        public var title: String?
        public var status: String?
        public var isLive: Bool
        public var phase: String?
        public var lastEventSeq: Int64?
        public var lastEventAt: String?
    }

    /// Pushes of an activity (or a channel) by final answer.
    public struct Totals: Codable, Sendable, Equatable {
        public var sent: Int64
        public var accepted: Int64
        public var refused: Int64
        public var retried: Int64
        public var superseded: Int64
        public var dead: Int64
    }

    /// One Live Activity (match × device).
    public struct Activity: Codable, Sendable, Equatable {
        public var matchId: String
        public var match: Match
        public var followedAt: String?
        /// pending, active, ended; nil when the device has no row for the match.
        public var status: String?
        public var endReason: String?
        public var delivery: String?
        /// Masked.
        public var channelId: String?
        public var channelState: String?
        public var updateToken: String?
        public var startAttempts: Int?
        public var startedAt: String?
        public var tokenRegisteredAt: String?
        public var endedAt: String?
        public var totals: Totals?
        public var lastStart: DeliveryEntry?
        public var lastUpdate: DeliveryEntry?
        public var lastKeyEvent: DeliveryEntry?
        public var lastEnd: DeliveryEntry?
        /// The newest refused or dead push (kept after it left `recent`).
        public var lastFailure: DeliveryEntry?
        /// Newest first, at most 20.
        public var recent: [DeliveryEntry]
        /// For a channel activity: the channel's totals and last broadcast.
        public var channelTotals: Totals?
        public var channelLastBroadcast: DeliveryEntry?
        public var findings: [SupportFinding]
    }

    /// The record's own state: how recent it is and where it has gaps.
    public struct Record: Codable, Sendable, Equatable {
        public var lastFoldAt: String?
        public var gaps: Int
    }

    public var scope: Scope
    public var userId: String
    public var deviceId: String?
    public var matchId: String?
    public var generatedAt: String
    public var devices: [Device]
    public var record: Record

    /// Every finding of every activity, worst first, each prefixed with its device and match.
    public var summary: [String] {
        devices.flatMap { device in
            device.activities.flatMap { activity in
                activity.findings.filter { $0.severity != .info }.map { "\(device.deviceId) / \(activity.matchId): [\($0.code.rawValue)] \($0.message)" }
            }
        }
    }
}

extension SupportReport.Totals {
    init(_ row: DeliveryRecordStore.Row) {
        self.init(sent: row.sent, accepted: row.accepted, refused: row.refused, retried: row.retried, superseded: row.superseded, dead: row.dead)
    }
}

import Runtime

/// How APNs keeps a channel's broadcasts for subscribers that are offline (fixed when the channel is created).
public enum APNsChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable {
    /// Nothing is stored: each broadcast is tried once (`apns-expiration` must be 0). The higher publishing
    /// budget, for frequent updates such as ball-by-ball scores.
    case noMessageStored = 0
    /// The latest broadcast is kept (≤ 8 hours, or until its `apns-expiration`) for subscribers that are offline.
    case mostRecentMessageStored = 1
}

/// A broadcast channel's id as APNs issued it: opaque base64 text, of no fixed length, never reused.
public struct APNsChannelID: Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String

    public init(_ rawValue: String) { self.rawValue = rawValue }

    public var description: String { rawValue }

    /// True for non-empty standard base64 (`A–Z a–z 0–9 + /`, `=` padding, a length that is a multiple of 4)
    /// of at most 256 characters: what APNs answers BadChannelId to otherwise.
    public static func isWellFormed(_ text: String) -> Bool { Base64.isStandard(text) }
}

/// One broadcast: one request to `/4/broadcasts/apps/<bundle>` that APNs copies to every subscriber of the
/// channel in one environment.
public struct APNsBroadcast: Sendable, Hashable {
    /// The exact JSON body (the same `aps` as a token update or end; ≤ 5,120 bytes on the wire, ≤ 4,096 for
    /// ActivityKit).
    public var payload: [UInt8]
    public var channel: APNsChannelID
    public var environment: APNsServerEnvironment
    /// 10 (immediate), 5 (power-considerate) or 1 (low).
    public var priority: Int
    /// `apns-expiration`, always sent: 0 on a No Message Stored channel (tried once), else Unix seconds.
    public var expiration: Int64
    /// `apns-request-id` (a lower-case UUID; use `APNsID.derive` so a replay reuses it).
    public var requestID: String

    public init(payload: [UInt8], channel: APNsChannelID, environment: APNsServerEnvironment, priority: Int, expiration: Int64,
                requestID: String) {
        self.payload = payload
        self.channel = channel
        self.environment = environment
        self.priority = priority
        self.expiration = expiration
        self.requestID = requestID
    }
}

/// The answer to one broadcast (one attempt, and one more after a new provider token). A broadcast has no
/// per-device answer: there is no 410, only the channel's fate.
public struct APNsBroadcastOutcome: Sendable, Equatable {
    /// `.delivered` (200), `.retry` (429, 5xx, no answer), `.channelInvalid` (ChannelNotRegistered /
    /// BadChannelId), `.regenerateJWTAndRetry` (still expired after one new token), or `.permanentFailure`.
    public var action: APNsAction
    public var status: Int?
    public var reason: APNsReason?
    public var requestID: String
    /// `apns-unique-id` of an accepted broadcast (to quote to Apple), when APNs sent one.
    public var uniqueID: String?
    public var attempts: Int
    public var transportError: String?
    public var latency: Duration

    public init(action: APNsAction, status: Int?, reason: APNsReason?, requestID: String, uniqueID: String? = nil, attempts: Int,
                transportError: String? = nil, latency: Duration = .zero) {
        self.action = action
        self.status = status
        self.reason = reason
        self.requestID = requestID
        self.uniqueID = uniqueID
        self.attempts = attempts
        self.transportError = transportError
        self.latency = latency
    }
}

/// A channel's configuration as the management API reads it back.
public struct APNsChannelInfo: Sendable, Equatable {
    public var storagePolicy: APNsChannelStoragePolicy
    /// "LiveActivity".
    public var pushType: String

    public init(storagePolicy: APNsChannelStoragePolicy, pushType: String) {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }
}

import APNs
import Runtime

/// How mock-apns listens and what it accepts.
public struct MockAPNsConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    public var certificateFile: String
    public var privateKeyFile: String
    /// Team id every token must carry (`iss`).
    public var teamID: String
    /// Verification keys by key id (`kid`); public or private halves.
    public var keys: [String: APNsSigningKey]
    /// Bundle id; accepted topics are it and `<bundleID>.push-type.liveactivity`.
    public var bundleID: String
    public var maxConcurrentStreams: Int
    public var threads: Int
    /// Check the Live Activity `aps` fields of each payload.
    public var validatePayloads: Bool
    /// Keep accepted pushes in memory for `deliveries(token:)` (at most `maxRecorded`).
    public var recordDeliveries: Bool
    public var maxRecorded: Int
    /// Also append each accepted push as a JSON line to this file.
    public var deliveryLogFile: String?
    /// The mock's idea of now (token age, 410 timestamps).
    public var clock: any WallClock
    public var faults: MockAPNsFaults
    /// The channel management listeners to open, by environment (port 0 picks a free one; empty: none, and
    /// broadcasts find no channel).
    public var managementPorts: [APNsServerEnvironment: Int]
    /// Channels per environment before CannotCreateChannelConfig (Apple: 10,000 per app per environment).
    public var channelLimit: Int

    public init(
        host: String = "127.0.0.1", port: Int = 0, certificateFile: String, privateKeyFile: String, teamID: String,
        keys: [String: APNsSigningKey], bundleID: String, maxConcurrentStreams: Int = 1000, threads: Int = 1,
        validatePayloads: Bool = true, recordDeliveries: Bool = true, maxRecorded: Int = 1_000_000,
        deliveryLogFile: String? = nil, clock: any WallClock = SystemWallClock(), faults: MockAPNsFaults = MockAPNsFaults(),
        managementPorts: [APNsServerEnvironment: Int] = [:], channelLimit: Int = 10_000
    ) {
        self.host = host
        self.port = port
        self.certificateFile = certificateFile
        self.privateKeyFile = privateKeyFile
        self.teamID = teamID
        self.keys = keys
        self.bundleID = bundleID
        self.maxConcurrentStreams = maxConcurrentStreams
        self.threads = threads
        self.validatePayloads = validatePayloads
        self.recordDeliveries = recordDeliveries
        self.maxRecorded = maxRecorded
        self.deliveryLogFile = deliveryLogFile
        self.clock = clock
        self.faults = faults
        self.managementPorts = managementPorts
        self.channelLimit = channelLimit
    }
}

/// Fault injection, changeable at run time (`POST /mock/faults` or `MockAPNsServer.setFaults`).
public struct MockAPNsFaults: Codable, Sendable, Equatable {
    /// Share of valid pushes answered 429 TooManyRequests (0…1).
    public var tooManyRequestsRate: Double
    /// Share of valid pushes answered 500 InternalServerError (0…1).
    public var internalErrorRate: Double
    /// Share of valid pushes answered 503 ServiceUnavailable (0…1).
    public var serviceUnavailableRate: Double
    /// Share of valid token pushes whose token APNs stops knowing: answered 410 Unregistered, and every
    /// later push to that token too (0…1). Broadcasts are not affected.
    public var unregisteredRate: Double
    /// GOAWAY on each connection after this many streams (nil: never).
    public var goAwayAfterStreams: Int?
    /// Added to every answer, milliseconds.
    public var latencyMilliseconds: Int
    /// New SETTINGS_MAX_CONCURRENT_STREAMS for every connection (nil: unchanged).
    public var maxConcurrentStreams: Int?
    /// Device tokens answered 429 TooManyRequests on every push (APNs throttles per device
    /// token: "too many requests were made consecutively to the same device token").
    public var throttledTokens: Set<String>
    /// Channel ids whose broadcasts are answered 429 TooManyRequests (APNs throttles a channel, not a device).
    public var throttledChannels: Set<String>
    /// The app's Broadcast capability switched off: broadcasts and channel management answer FeatureNotEnabled.
    public var broadcastDisabled: Bool

    public init(
        tooManyRequestsRate: Double = 0, internalErrorRate: Double = 0, serviceUnavailableRate: Double = 0,
        unregisteredRate: Double = 0, goAwayAfterStreams: Int? = nil, latencyMilliseconds: Int = 0, maxConcurrentStreams: Int? = nil,
        throttledTokens: Set<String> = [], throttledChannels: Set<String> = [], broadcastDisabled: Bool = false
    ) {
        self.tooManyRequestsRate = tooManyRequestsRate
        self.internalErrorRate = internalErrorRate
        self.serviceUnavailableRate = serviceUnavailableRate
        self.unregisteredRate = unregisteredRate
        self.goAwayAfterStreams = goAwayAfterStreams
        self.latencyMilliseconds = latencyMilliseconds
        self.maxConcurrentStreams = maxConcurrentStreams
        self.throttledTokens = throttledTokens
        self.throttledChannels = throttledChannels
        self.broadcastDisabled = broadcastDisabled
    }

    enum CodingKeys: String, CodingKey {
        case tooManyRequestsRate, internalErrorRate, serviceUnavailableRate, unregisteredRate, goAwayAfterStreams, latencyMilliseconds
        case maxConcurrentStreams, throttledTokens, throttledChannels, broadcastDisabled
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tooManyRequestsRate = try container.decodeIfPresent(Double.self, forKey: .tooManyRequestsRate) ?? 0
        internalErrorRate = try container.decodeIfPresent(Double.self, forKey: .internalErrorRate) ?? 0
        serviceUnavailableRate = try container.decodeIfPresent(Double.self, forKey: .serviceUnavailableRate) ?? 0
        unregisteredRate = try container.decodeIfPresent(Double.self, forKey: .unregisteredRate) ?? 0
        goAwayAfterStreams = try container.decodeIfPresent(Int.self, forKey: .goAwayAfterStreams)
        latencyMilliseconds = try container.decodeIfPresent(Int.self, forKey: .latencyMilliseconds) ?? 0
        maxConcurrentStreams = try container.decodeIfPresent(Int.self, forKey: .maxConcurrentStreams)
        throttledTokens = try container.decodeIfPresent(Set<String>.self, forKey: .throttledTokens) ?? []
        throttledChannels = try container.decodeIfPresent(Set<String>.self, forKey: .throttledChannels) ?? []
        broadcastDisabled = try container.decodeIfPresent(Bool.self, forKey: .broadcastDisabled) ?? false
    }
}

extension MockAPNsFaults {
    /// The fault a valid request gets, if any: 429 when its token or channel is `throttled`, else one drawn by the rates.
    func injected(throttled: Bool) -> APNsReason? {
        if throttled { return .tooManyRequests }
        // No rate set (the usual case): no random draw per push.
        guard tooManyRequestsRate > 0 || internalErrorRate > 0 || serviceUnavailableRate > 0 else { return nil }
        let roll = Double.random(in: 0..<1)
        if roll < tooManyRequestsRate { return .tooManyRequests }
        if roll < tooManyRequestsRate + internalErrorRate { return .internalServerError }
        if roll < tooManyRequestsRate + internalErrorRate + serviceUnavailableRate { return .serviceUnavailable }
        return nil
    }
}

/// One accepted push as recorded by the mock (and written to the JSON-lines log).
public struct MockAPNsDelivery: Codable, Sendable, Equatable {
    public var apnsID: String
    public var token: String
    public var topic: String
    public var pushType: String
    public var priority: Int
    public var expiration: Int64?
    public var collapseID: String?
    public var payload: String
    /// Mock clock, Unix milliseconds.
    public var receivedAt: Int64
    public var connectionID: Int
    /// Position in the mock's accepted-push log, from 1, increasing across `reset` (set when recorded);
    /// `GET /mock/deliveries?since=SEQ` returns the recorded pushes with a larger sequence.
    public var sequence: Int? = nil
    /// Set on a broadcast's copy to one subscriber (`token` is then the subscriber): the channel it came through.
    public var channelId: String? = nil
    /// The payload's `aps.timestamp` as the payload check read it (nil when payloads are not checked or it has none).
    public var apsTimestamp: Int64? = nil

    public init(apnsID: String, token: String, topic: String, pushType: String, priority: Int, expiration: Int64?, collapseID: String?,
                payload: String, receivedAt: Int64, connectionID: Int, sequence: Int? = nil, channelId: String? = nil,
                apsTimestamp: Int64? = nil) {
        self.apnsID = apnsID
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.collapseID = collapseID
        self.payload = payload
        self.receivedAt = receivedAt
        self.connectionID = connectionID
        self.sequence = sequence
        self.channelId = channelId
        self.apsTimestamp = apsTimestamp
    }
}

/// A push the mock refused after reading whom it was for: a 410 for an unregistered token, or an injected fault (429,
/// 5xx, …). Recorded beside the accepted pushes and numbered from the same sequence, so the two lists merge into the
/// order in which APNs answered (what an independent checker reads: "no push to a token after APNs refused it").
/// Requests refused before their target is known (a malformed request) are only counted.
/// A push accepted for a token that had one accepted before (`GET /mock/repeats`): the token's first accepted push
/// and the repeat, each by apns-id, arrival time, connection and sequence (no payloads).
public struct MockAPNsRepeat: Codable, Sendable, Equatable {
    /// One accepted push, without its payload.
    public struct Copy: Codable, Sendable, Equatable {
        public var apnsID: String
        /// Mock clock, Unix milliseconds.
        public var receivedAt: Int64
        public var connectionID: Int
        public var sequence: Int
        public var apsTimestamp: Int64?

        init(_ delivery: MockAPNsDelivery) {
            apnsID = delivery.apnsID
            receivedAt = delivery.receivedAt
            connectionID = delivery.connectionID
            sequence = delivery.sequence ?? 0
            apsTimestamp = delivery.apsTimestamp
        }
    }

    public var token: String
    public var first: Copy
    public var again: Copy
}

public struct MockAPNsRefusal: Codable, Sendable, Equatable {
    /// Position in the mock's log, shared with `MockAPNsDelivery.sequence`.
    public var sequence: Int
    /// The device token, or nil for a broadcast.
    public var token: String?
    /// A broadcast's channel, or nil for a device push.
    public var channelId: String?
    /// The request's `apns-id` (device push) or `apns-request-id` (broadcast).
    public var apnsID: String
    public var status: Int
    public var reason: String
    public var priority: Int
    /// The payload's `aps.timestamp` when the payload check read one.
    public var apsTimestamp: Int64?
    /// Mock clock, Unix milliseconds.
    public var receivedAt: Int64

    public init(sequence: Int, token: String?, channelId: String?, apnsID: String, status: Int, reason: String, priority: Int,
                apsTimestamp: Int64?, receivedAt: Int64) {
        self.sequence = sequence
        self.token = token
        self.channelId = channelId
        self.apnsID = apnsID
        self.status = status
        self.reason = reason
        self.priority = priority
        self.apsTimestamp = apsTimestamp
        self.receivedAt = receivedAt
    }
}

/// Accepted pushes that carried one `aps.timestamp`.
public struct MockAPNsTimestampCount: Codable, Sendable, Equatable {
    public var accepted: Int
    /// Mock clock (Unix ms) of the first and the last of them.
    public var firstAcceptedAt: Int64
    public var lastAcceptedAt: Int64

    mutating func note(_ receivedAt: Int64) {
        accepted += 1
        firstAcceptedAt = min(firstAcceptedAt, receivedAt)
        lastAcceptedAt = max(lastAcceptedAt, receivedAt)
    }
}

/// The mock's counters.
public struct MockAPNsCounters: Codable, Sendable, Equatable {
    public var accepted: Int
    /// Rejected pushes (device and broadcast) by reason string.
    public var rejected: [String: Int]
    /// Refused channel-management requests by reason string (never counted in `rejected`).
    public var channelRequestsRejected: [String: Int] = [:]
    public var connections: Int
    public var streams: Int
    public var goAwaysSent: Int
    public var peakConcurrentStreams: Int
    /// Tokens with at least one accepted push.
    public var distinctTokens: Int = 0
    /// Accepted pushes to a token that already had one (0 when every token got exactly one).
    public var repeatedPushes: Int = 0
    /// Mock clock (Unix ms) of the first and the last accepted push since the last reset; 0 before any.
    public var firstAcceptedAt: Int64 = 0
    public var lastAcceptedAt: Int64 = 0
    /// Accepted pushes whose `aps.timestamp` is older than one the same token had already accepted (0 when no device
    /// was ever shown an older state after a newer one).
    public var backwardsPushes: Int = 0
    /// Accepted Live Activity pushes by their `aps.timestamp` (decimal string): one entry per event in the benchmarks.
    public var byTimestamp: [String: MockAPNsTimestampCount] = [:]
    /// Broadcasts accepted since the last reset (device-push counters above never include them or their copies).
    public var broadcastsAccepted: Int = 0
    /// Copies of accepted broadcasts to subscribers (listed and counted ones).
    public var broadcastCopies: Int = 0
    /// Broadcasts accepted with an `apns-request-id` accepted before (0 when each was sent once).
    public var repeatedBroadcasts: Int = 0
    public var firstBroadcastAcceptedAt: Int64 = 0
    public var lastBroadcastAcceptedAt: Int64 = 0
    /// Channels that exist, by environment.
    public var channels: [String: Int] = [:]
}

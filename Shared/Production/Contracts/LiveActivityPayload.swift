import Foundation

/// The APNs body of a Live Activity push (`apns-push-type: liveactivity`):
/// `{"aps": {"timestamp", "event", "content-state", "stale-date", "dismissal-date", "relevance-score",
/// "alert", "attributes-type", "attributes"}}`, encoded deterministically (sorted keys, no insignificant
/// whitespace) so the same event always gives the same bytes, and checked against APNs' 4,096-byte limit.
public struct LiveActivityPayload: Sendable, Equatable {
    /// What the push does to the activity.
    public enum Event: String, Sendable, Codable {
        case update, end, start
    }

    /// The APNs alert of a Live Activity push (shown for priority-10 pushes).
    public struct PushAlert: Sendable, Equatable, Codable {
        public var title: String
        public var body: String
        /// "default" to play the default sound; nil for none.
        public var sound: String?

        public init(title: String, body: String, sound: String? = "default") {
            self.title = title
            self.body = body
            self.sound = sound
        }
    }

    /// APNs refuses larger payloads (413 PayloadTooLarge).
    public static let maximumBytes = 4096

    public var event: Event
    /// Unix epoch seconds of the content; ActivityKit keeps the newest.
    public var timestamp: Int64
    public var contentState: UnifiedDisplayState
    /// Unix epoch seconds after which the system marks the activity stale.
    public var staleDate: Int64?
    /// Unix epoch seconds at which an ended activity leaves the Lock Screen ("end" only).
    public var dismissalDate: Int64?
    /// Which activity iOS features when several run; the key event's priority (10 or 5).
    public var relevanceScore: Double?
    public var alert: PushAlert?
    /// The `ActivityAttributes` type name ("start" only).
    public var attributesType: String?
    /// The static attributes ("start" only).
    public var attributes: [String: String]?
    /// `input-push-channel` ("start" only, iOS 18+): the broadcast channel the started activity subscribes to
    /// (then it gets no update token; never sent with `input-push-token`).
    public var inputPushChannel: String?

    public init(event: Event, timestamp: Int64, contentState: UnifiedDisplayState, staleDate: Int64? = nil,
                dismissalDate: Int64? = nil, relevanceScore: Double? = nil, alert: PushAlert? = nil,
                attributesType: String? = nil, attributes: [String: String]? = nil) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.attributesType = attributesType
        self.attributes = attributes
    }

    /// Seconds after a push's `timestamp` at which its content is stale (the app ends stale activities at 30 min).
    public static let defaultStaleAfter: Int64 = 1800
    /// The same during a stoppage (lunch, tea, drinks, rain): beyond the break.
    public static let defaultBreakStaleAfter: Int64 = 7200

    /// The push for a match event: "end" with a dismissal date once the match has ended or a day of play
    /// has closed (stumps), else "update"; the alert only when the key event is priority 10.
    /// - Parameters:
    ///   - staleAfter: seconds after `timestamp` at which the content is stale (the app ends stale activities at 30 min).
    ///   - breakStaleAfter: the same during a stoppage (lunch, tea, drinks, rain): nothing changes until play
    ///     resumes, so the content stays fresh beyond the break and the activity is kept.
    ///   - dismissAfter: seconds after `timestamp` at which an activity ended by the match's end is removed.
    ///   - closeOfPlayDismissAfter: the same for a day's close: the close-of-play state stays for the evening.
    public static func forEvent(_ event: MatchBusEvent, staleAfter: Int64 = defaultStaleAfter,
                                breakStaleAfter: Int64 = defaultBreakStaleAfter,
                                dismissAfter: Int64 = 3600, closeOfPlayDismissAfter: Int64 = 14_400) -> LiveActivityPayload
    {
        let timestamp = event.emittedAt / 1000
        let ends = event.endsActivities
        let key = event.keyEvent
        let alert = key.flatMap { $0.priority >= 10 ? $0.alert : nil }.map { PushAlert(title: $0.title, body: $0.body) }
        let dismissal = ends ? timestamp + (event.endsDay ? closeOfPlayDismissAfter : dismissAfter) : nil
        return LiveActivityPayload(
            event: ends ? .end : .update, timestamp: timestamp, contentState: event.displayState,
            staleDate: ends ? nil : timestamp + (event.phase == .interrupted ? breakStaleAfter : staleAfter),
            dismissalDate: dismissal,
            relevanceScore: Double(key?.priority ?? 5), alert: alert)
    }

    /// An end dismissed at once, with the current state and no alert: an activity the user ended (unfollow,
    /// dismiss on another device), or one replaced by a new one (the rollover before iOS's 8-hour limit).
    public static func dismissedNow(state: UnifiedDisplayState, timestamp: Int64) -> LiveActivityPayload {
        LiveActivityPayload(event: .end, timestamp: timestamp, contentState: state, dismissalDate: timestamp)
    }

    /// A push-to-start body: "start" with the attributes type and attributes, and the alert iOS requires.
    public static func start(state: UnifiedDisplayState, timestamp: Int64, attributesType: String,
                             attributes: [String: String], alert: PushAlert, staleAfter: Int64 = 1800)
        -> LiveActivityPayload
    {
        LiveActivityPayload(event: .start, timestamp: timestamp, contentState: state, staleDate: timestamp + staleAfter,
                            relevanceScore: 5, alert: alert, attributesType: attributesType, attributes: attributes)
    }

    /// The exact JSON bytes (deterministic).
    /// - Throws: `LiveActivityPayloadError.tooLarge` above `maximumBytes`.
    public func encoded() throws(LiveActivityPayloadError) -> [UInt8] {
        let bytes: [UInt8]
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            bytes = Array(try encoder.encode(Body(aps: self)))
        } catch {
            throw .encodingFailed(matchId: contentState.matchId, reason: String(describing: error))
        }
        guard bytes.count <= Self.maximumBytes else {
            throw .tooLarge(matchId: contentState.matchId, bytes: bytes.count, limit: Self.maximumBytes)
        }
        return bytes
    }

    /// The JSON text (what `PushJob.payload` carries).
    public func jsonString() throws(LiveActivityPayloadError) -> String {
        String(decoding: try encoded(), as: UTF8.self)
    }

    struct Body: Encodable {
        var aps: LiveActivityPayload
    }
}

extension LiveActivityPayload: Encodable {
    enum CodingKeys: String, CodingKey {
        case timestamp, event
        case contentState = "content-state"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case relevanceScore = "relevance-score"
        case alert
        case attributesType = "attributes-type"
        case attributes
        case inputPushChannel = "input-push-channel"
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(timestamp, forKey: .timestamp)
        try c.encode(event, forKey: .event)
        try c.encode(contentState, forKey: .contentState)
        try c.encodeIfPresent(staleDate, forKey: .staleDate)
        try c.encodeIfPresent(dismissalDate, forKey: .dismissalDate)
        try c.encodeIfPresent(relevanceScore, forKey: .relevanceScore)
        try c.encodeIfPresent(alert, forKey: .alert)
        try c.encodeIfPresent(attributesType, forKey: .attributesType)
        try c.encodeIfPresent(attributes, forKey: .attributes)
        try c.encodeIfPresent(inputPushChannel, forKey: .inputPushChannel)
    }
}

/// Why a Live Activity payload could not be made.
public enum LiveActivityPayloadError: Error, Equatable, CustomStringConvertible {
    /// Over APNs' limit; carries the size so the caller can log it.
    case tooLarge(matchId: String, bytes: Int, limit: Int)
    case encodingFailed(matchId: String, reason: String)

    public var description: String {
        switch self {
        case .tooLarge(let matchId, let bytes, let limit): "match \(matchId): payload \(bytes) bytes exceeds \(limit)"
        case .encodingFailed(let matchId, let reason): "match \(matchId): payload encoding failed: \(reason)"
        }
    }
}

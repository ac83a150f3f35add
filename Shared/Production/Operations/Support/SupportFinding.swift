/// One thing the diagnosis found about a Live Activity (or a device), in one sentence a support engineer can read to the
/// user: a stable `code` (for tooling and tests), how bad it is, the sentence, and when it happened.
public struct SupportFinding: Codable, Sendable, Equatable {
    /// How much it explains a Lock Screen that did not move.
    public enum Severity: String, Codable, Sendable, Comparable {
        /// Normal life (ended by the match's end, on a channel, retried and accepted).
        case info
        /// Worth knowing; may explain a delay or a lost update.
        case warning
        /// Explains a Lock Screen that did not move.
        case problem

        private var rank: Int { self == .info ? 0 : self == .warning ? 1 : 2 }
        public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }
    }

    /// Every finding the diagnosis can make.
    public enum Code: String, Codable, Sendable, CaseIterable {
        /// PENDING with no push-to-start in the record yet.
        case startNotSent = "start_not_sent"
        /// The push-to-start was refused or dead.
        case startNotAccepted = "start_not_accepted"
        /// The push-to-start was accepted but no update token came back.
        case noUpdateToken = "no_update_token"
        /// APNs refused a token (410 Unregistered, 400 BadDeviceToken).
        case tokenRefused = "token_refused"
        /// Started again after the token was refused.
        case restarted
        /// An update accepted after one with a newer content timestamp: ActivityKit drops it.
        case olderThanShown = "older_than_shown"
        /// On a broadcast channel: per-token pushes do not reach it.
        case onChannel = "on_channel"
        /// The activity's channel is not usable.
        case channelNotActive = "channel_not_active"
        /// No accepted update for a while, and the match is in a break.
        case staleInBreak = "stale_in_break"
        /// No accepted update for a while although the match is live.
        case staleWhileLive = "stale_while_live"
        /// The content was trimmed to fit 4 KB.
        case payloadTrimmed = "payload_trimmed"
        /// Pushes were dead-lettered.
        case deadLettered = "dead_lettered"
        /// Updates were not sent because a newer state went first.
        case superseded
        /// APNs asked for retries (429, 5xx, no answer) before it answered.
        case retried
        /// The same push was sent again (a replay after a restart): the device shows it once.
        case resent
        /// Ended, and why.
        case ended
        /// Ended, but its end push was not accepted: the activity stays until it is stale.
        case endNotDelivered = "end_not_delivered"
        /// The device follows a live match but has no Live Activity for it.
        case notStarted = "not_started"
        /// The delivery record has a gap: some pushes are not in it.
        case recordGap = "record_gap"
        /// The delivery record is behind the pushes.
        case recordBehind = "record_behind"
    }

    public var code: Code
    public var severity: Severity
    /// One sentence, in plain words, with the times in it.
    public var message: String
    /// When it happened (ISO 8601), when it has a time.
    public var at: String?

    public init(_ code: Code, _ severity: Severity, _ message: String, at: String? = nil) {
        self.code = code
        self.severity = severity
        self.message = message
        self.at = at
    }
}

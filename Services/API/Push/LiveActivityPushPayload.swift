import Contracts
import Foundation

/// The APNs body of the api's Live Activity pushes (start on follow, end on unfollow/dismiss):
/// `{"aps": {"timestamp", "event", "content-state", "stale-date"?, "dismissal-date"?, "relevance-score"?,
/// "alert"?, "attributes-type"?, "attributes"?}}`, keys sorted, ≤ 4,096 bytes.
///
/// The one place the api builds payload JSON; mirrors `Contracts.LiveActivityPayload` (on its way to main)
/// so switching to it is a one-function change.
struct LiveActivityPushPayload: Encodable {
    static let maximumBytes = 4096

    struct Alert: Encodable { var title: String; var body: String }

    var timestamp: Int64
    var event: String
    var contentState: UnifiedDisplayState
    var staleDate: Int64?
    var dismissalDate: Int64?
    var relevanceScore: Double?
    var alert: Alert?
    var attributesType: String?
    var attributes: [String: String]?

    enum CodingKeys: String, CodingKey {
        case timestamp, event, alert, attributes
        case contentState = "content-state"
        case staleDate = "stale-date"
        case dismissalDate = "dismissal-date"
        case relevanceScore = "relevance-score"
        case attributesType = "attributes-type"
    }

    /// Push-to-start: "start" with attributes and the alert iOS requires; stale after 30 minutes.
    static func start(state: UnifiedDisplayState, timestamp: Int64, attributesType: String) -> LiveActivityPushPayload {
        LiveActivityPushPayload(
            timestamp: timestamp, event: "start", contentState: state, staleDate: timestamp + 1800, relevanceScore: 5,
            alert: Alert(title: state.title, body: state.statusText), attributesType: attributesType,
            attributes: ["matchId": state.matchId])
    }

    /// "end" with a dismissal date of now: the activity leaves the Lock Screen at once.
    static func end(state: UnifiedDisplayState, timestamp: Int64) -> LiveActivityPushPayload {
        LiveActivityPushPayload(timestamp: timestamp, event: "end", contentState: state, dismissalDate: timestamp)
    }

    /// The JSON text; nil when it would exceed APNs' 4,096-byte limit.
    func jsonText() -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(["aps": self]), data.count <= Self.maximumBytes else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

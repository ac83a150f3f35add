import Contracts
import Foundation

/// A Live Activity APNs push as the device receives it: `{"aps": {"timestamp", "event",
/// "content-state", "dismissal-date"?, ...}}`.
public struct ActivityPush: Sendable, Equatable {
    /// The `event` of the payload.
    public enum Event: String, Sendable, Equatable, Codable {
        case start
        case update
        case end
    }

    public var event: Event
    /// APNs `timestamp`, Unix epoch seconds.
    public var timestamp: Int64
    public var contentState: UnifiedDisplayState
    /// APNs `dismissal-date` (with `end`), Unix epoch seconds.
    public var dismissalDate: Int64?
    /// APNs `stale-date` (with `start` and `update`), Unix epoch seconds: until when the content is current.
    public var staleDate: Int64?
    /// `attributes-type` (with `start`): the `ActivityAttributes` type the push asks iOS to start.
    public var attributesType: String?
    /// `attributes` (with `start`): the static attributes of the activity.
    public var attributes: [String: String]?
    /// `input-push-channel` (with `start`, iOS 18+): the broadcast channel the started activity subscribes to.
    public var inputPushChannel: String? = nil
    /// The alert iOS shows for the push (priority-10 updates, starts): the title and body of the event's `Alert`.
    public var alert: Alert? = nil

    /// The match, from the content state.
    public var matchId: String { contentState.matchId }

    public init(event: Event, timestamp: Int64, contentState: UnifiedDisplayState, dismissalDate: Int64? = nil,
                staleDate: Int64? = nil, attributesType: String? = nil, attributes: [String: String]? = nil) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.dismissalDate = dismissalDate
        self.staleDate = staleDate
        self.attributesType = attributesType
        self.attributes = attributes
    }

    /// Why iOS would not start an activity from this push, or nil when it would: a start must name
    /// the app's type (``MatchActivityAttributes/typeName``) and carry exactly its attributes, as
    /// `ActivityAttributes` decoding requires.
    public var startRefusal: String? {
        guard event == .start else { return "not a start" }
        guard attributesType == MatchActivityAttributes.typeName else {
            return "attributes-type \(attributesType ?? "missing") is not \(MatchActivityAttributes.typeName)"
        }
        guard let attributes, Set(attributes.keys) == Set(MatchActivityAttributes.attributeKeys) else {
            return "attributes \(attributes.map { $0.keys.sorted().joined(separator: ",") } ?? "missing") do not decode into "
                + MatchActivityAttributes.typeName
        }
        return nil
    }

    /// The content this push carries.
    public var content: ActivityContent { ActivityContent(state: contentState, timestamp: timestamp) }

    /// Decodes an APNs JSON body. Throws `ActivityPushDecodeError` with an excerpt of the input.
    public static func decode(apnsPayload bytes: [UInt8]) throws -> ActivityPush {
        do {
            let aps = try JSONDecoder().decode(Envelope.self, from: Data(bytes)).aps
            var push = ActivityPush(
                event: aps.event, timestamp: aps.timestamp, contentState: aps.contentState,
                dismissalDate: aps.dismissalDate, staleDate: aps.staleDate, attributesType: aps.attributesType,
                attributes: aps.attributes)
            push.inputPushChannel = aps.inputPushChannel
            push.alert = aps.alert
            return push
        } catch {
            throw ActivityPushDecodeError(reason: String(describing: error), excerpt: String(decoding: bytes.prefix(120), as: UTF8.self))
        }
    }

    private struct Envelope: Decodable {
        var aps: Aps
    }

    private struct Aps: Decodable {
        var timestamp: Int64
        var event: Event
        var contentState: UnifiedDisplayState
        var dismissalDate: Int64?
        var staleDate: Int64?
        var attributesType: String?
        var attributes: [String: String]?
        var inputPushChannel: String?
        var alert: Alert?

        enum CodingKeys: String, CodingKey {
            case timestamp
            case event
            case contentState = "content-state"
            case dismissalDate = "dismissal-date"
            case staleDate = "stale-date"
            case attributesType = "attributes-type"
            case attributes
            case inputPushChannel = "input-push-channel"
            case alert
        }
    }
}

/// An APNs body that is not a Live Activity push this app understands.
public struct ActivityPushDecodeError: Error, Sendable, Equatable {
    public var reason: String
    /// The first 120 bytes of the body.
    public var excerpt: String
    public init(reason: String, excerpt: String) {
        self.reason = reason
        self.excerpt = excerpt
    }
}

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

    /// The match, from the content state.
    public var matchId: String { contentState.matchId }

    public init(event: Event, timestamp: Int64, contentState: UnifiedDisplayState, dismissalDate: Int64? = nil) {
        self.event = event
        self.timestamp = timestamp
        self.contentState = contentState
        self.dismissalDate = dismissalDate
    }

    /// The content this push carries.
    public var content: ActivityContent { ActivityContent(state: contentState, timestamp: timestamp) }

    /// Decodes an APNs JSON body. Throws `ActivityPushDecodeError` with an excerpt of the input.
    public static func decode(apnsPayload bytes: [UInt8]) throws -> ActivityPush {
        do {
            let aps = try JSONDecoder().decode(Envelope.self, from: Data(bytes)).aps
            return ActivityPush(
                event: aps.event, timestamp: aps.timestamp, contentState: aps.contentState,
                dismissalDate: aps.dismissalDate)
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

        enum CodingKeys: String, CodingKey {
            case timestamp
            case event
            case contentState = "content-state"
            case dismissalDate = "dismissal-date"
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

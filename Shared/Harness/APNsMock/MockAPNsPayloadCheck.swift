import APNs
import FastJSON
import Foundation

/// Checks an APNs JSON body the way a Live Activity needs it: an `aps` object; for push type
/// `liveactivity` a numeric `timestamp`, `event` start/update/end, a `content-state` object,
/// numeric `dismissal-date` / `stale-date` / `relevance-score` when present, and for `start`
/// `attributes-type` (string) and `attributes` (object). Returns a problem description or nil.
enum MockAPNsPayloadCheck {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Which checks a body gets: every push needs `aps`; a Live Activity push needs the rest.
    private protocol Checks { static var liveActivity: Bool { get } }
    private enum LiveActivityChecks: Checks { static let liveActivity = true }
    private enum APSChecks: Checks { static let liveActivity = false }

    private struct Body<Kind: Checks>: Decodable {
        var problem: String?
        var timestamp: Int64?

        init(from decoder: any Decoder) throws {
            let root = try decoder.container(keyedBy: AnyKey.self)
            let apsKey = AnyKey(stringValue: "aps")
            guard root.contains(apsKey) else {
                problem = "no aps object"
                return
            }
            guard let aps = try? root.nestedContainer(keyedBy: AnyKey.self, forKey: apsKey) else {
                problem = "aps is not an object"
                return
            }
            problem = Kind.liveActivity ? MockAPNsPayloadCheck.checkLiveActivity(aps) : nil
            timestamp = Kind.liveActivity ? try? aps.decode(Int64.self, forKey: AnyKey(stringValue: "timestamp")) : nil
        }
    }

    private static func checkLiveActivity(_ aps: KeyedDecodingContainer<AnyKey>) -> String? {
        func key(_ name: String) -> AnyKey { AnyKey(stringValue: name) }
        func isNumber(_ name: String) -> Bool { (try? aps.decode(Double.self, forKey: key(name))) != nil }
        func isObject(_ name: String) -> Bool { (try? aps.nestedContainer(keyedBy: AnyKey.self, forKey: key(name))) != nil }
        guard aps.contains(key("timestamp")), isNumber("timestamp") else { return "aps.timestamp must be a number" }
        guard let event = try? aps.decode(String.self, forKey: key("event")), ["start", "update", "end"].contains(event) else {
            return "aps.event must be start, update or end"
        }
        guard isObject("content-state") else { return "aps.content-state must be an object" }
        for name in ["dismissal-date", "stale-date", "relevance-score"] where aps.contains(key(name)) && !isNumber(name) {
            return "aps.\(name) must be a number"
        }
        if aps.contains(key("dismissal-date")) && event != "end" { return "aps.dismissal-date is only for end" }
        if event != "start" && (aps.contains(key("input-push-channel")) || aps.contains(key("input-push-token"))) {
            return "aps.input-push-channel / input-push-token are only for start"
        }
        if event == "start" {
            guard (try? aps.decode(String.self, forKey: key("attributes-type"))) != nil else {
                return "start needs aps.attributes-type"
            }
            guard isObject("attributes") else { return "start needs an aps.attributes object" }
            if aps.contains(key("input-push-channel")) {
                guard let channel = try? aps.decode(String.self, forKey: key("input-push-channel")), APNsChannelID.isWellFormed(channel) else {
                    return "aps.input-push-channel must be a base64 channel id"
                }
                // iOS drops a push with both ("Incoming message contains two forms of push input").
                if aps.contains(key("input-push-token")) { return "aps.input-push-channel and aps.input-push-token together" }
            }
        }
        return nil
    }

    /// The integer after the first `"timestamp":` of a body (a Live Activity push's `aps.timestamp`; the mock's
    /// ordering check), found without parsing the JSON; nil when there is none. For bodies the payload check did not
    /// read (payload checks off, broadcast copies): a checked push carries `MockAPNsDelivery.apsTimestamp`.
    static func timestamp(in payload: String) -> Int64? {
        var payload = payload
        return payload.withUTF8 { bytes -> Int64? in
            let marker: [UInt8] = Array(#""timestamp":"#.utf8)
            guard bytes.count > marker.count else { return nil }
            var index = 0
            while index + marker.count <= bytes.count {
                guard bytes[index] == 0x22, bytes[index + 1] == 0x74,
                      (0..<marker.count).allSatisfy({ bytes[index + $0] == marker[$0] }) else {
                    index += 1
                    continue
                }
                var cursor = index + marker.count
                while cursor < bytes.count, bytes[cursor] == 0x20 { cursor += 1 }
                var value: Int64 = 0
                var digits = 0
                while cursor < bytes.count, (0x30...0x39).contains(bytes[cursor]), digits < 18 {
                    value = value * 10 + Int64(bytes[cursor] - 0x30)
                    digits += 1
                    cursor += 1
                }
                return digits > 0 ? value : nil
            }
            return nil
        }
    }

    /// The problem text of a body that is not a JSON object.
    static let notJSON = "payload is not a JSON object"

    private struct EventOnly: Decodable {
        struct APS: Decodable { var event: String? }
        var aps: APS?
    }

    /// `aps.event` of a body, when it has one.
    static func event(in payload: [UInt8]) -> String? {
        (try? FastJSONDecoder().decode(EventOnly.self, from: payload))?.aps?.event
    }

    /// nil when fine, otherwise what is wrong. Parsed with FastJSON (the project's tape decoder): the mock checks every push of a benchmark, so its
    /// cost is part of what is measured.
    static func problem(in payload: [UInt8], liveActivity: Bool) -> String? {
        check(payload, liveActivity: liveActivity).problem
    }

    /// What is wrong with a body (nil when fine) and, for a Live Activity push, its `aps.timestamp`: one parse for both.
    static func check(_ payload: [UInt8], liveActivity: Bool) -> (problem: String?, timestamp: Int64?) {
        let decoder = FastJSONDecoder()
        do {
            if liveActivity {
                let body = try decoder.decode(Body<LiveActivityChecks>.self, from: payload)
                return (body.problem, body.timestamp)
            }
            return (try decoder.decode(Body<APSChecks>.self, from: payload).problem, nil)
        } catch {
            return (notJSON, nil)
        }
    }
}

import APNsMock
import Foundation

/// Issue 42's invariant 6: the services' own per-activity delivery record (what support reads:
/// `push_deliveries`, one row per match, user and device) agrees with what APNs saw (mock-apns's accepted pushes,
/// attributed to devices through the tokens each device held). Compared by apns-id, never by token (the record
/// keeps tokens masked):
/// - every push the record lists as accepted (its recent history and its last push of each kind) was accepted by
///   APNs for that device, and is of the kind the record says;
/// - the newest push APNs accepted for the device is in the record (the last thing the Lock Screen got is what
///   support sees first);
/// - the record's accepted total lies between the distinct apns-ids APNs accepted for the device and all its
///   acceptances (a job sent again after a crash is counted by both, a replayed outcome by neither);
/// - a device APNs accepted pushes for has a record.
///
/// Broadcast-channel rows (one per channel, no device) are not compared here.
public struct RecordAgreementRule: Sendable {
    /// The record's row of one device, as the rule reads it.
    public struct RecordedDevice: Sendable {
        public var deviceId: String
        /// The row's accepted total.
        public var accepted: Int64
        /// Every accepted push the row lists (recent history and last of each kind): apns-id and kind
        /// (`DeliveryKind`'s raw value: start, update, key_event, end, alert, background).
        public var pushes: [(apnsId: String, kind: String)]

        public init(deviceId: String, accepted: Int64, pushes: [(apnsId: String, kind: String)]) {
            self.deviceId = deviceId
            self.accepted = accepted
            self.pushes = pushes
        }
    }

    /// What the rule found.
    public struct Report: Sendable, Equatable {
        public var violations: [MatchDayViolation]
        /// Devices compared and the accepted pushes attributed to them.
        public var devices: Int
        public var accepted: Int
    }

    public init() {}

    /// Compares `records` with the mock's `deliveries`; `owner` names the device a token belongs to (nil: a token of
    /// no device of the run, skipped).
    public func check(records: [RecordedDevice], deliveries: [MockAPNsDelivery], owner: (String) -> String?) -> Report {
        var seen: [String: [MockAPNsDelivery]] = [:]
        for delivery in deliveries where delivery.channelId == nil {
            guard let device = owner(delivery.token) else { continue }
            seen[device, default: []].append(delivery)
        }
        let byDevice = Dictionary(records.map { ($0.deviceId, $0) }, uniquingKeysWith: { first, _ in first })
        var violations: [MatchDayViolation] = []
        for (device, pushes) in seen.sorted(by: { $0.key < $1.key }) {
            let ordered = pushes.sorted { ($0.sequence ?? 0) < ($1.sequence ?? 0) }
            guard let record = byDevice[device] else {
                violations.append(violation(ordered.last!, "device \(device): APNs accepted \(ordered.count) pushes, the delivery record has no row"))
                continue
            }
            var kinds: [String: String] = [:]
            for push in ordered { kinds[push.apnsID] = Self.kind(of: push) }
            for entry in record.pushes {
                guard let kind = kinds[entry.apnsId] else {
                    violations.append(MatchDayViolation(
                        rule: .recordDisagrees, token: "", sequences: [],
                        detail: "device \(device): the record lists \(entry.kind) \(entry.apnsId) as accepted; APNs never accepted it for this device"))
                    continue
                }
                if kind != entry.kind {
                    let push = ordered.last { $0.apnsID == entry.apnsId }!
                    violations.append(violation(push, "device \(device): the record calls \(entry.apnsId) \(entry.kind), APNs got a \(kind)"))
                }
            }
            let newest = ordered.last!
            if !record.pushes.contains(where: { $0.apnsId == newest.apnsID }) {
                violations.append(violation(newest, "device \(device): the newest push APNs accepted (\(Self.kind(of: newest)) \(newest.apnsID)) is not in the record"))
            }
            let distinct = Int64(kinds.count)
            if record.accepted < distinct || record.accepted > Int64(ordered.count) {
                violations.append(violation(newest, "device \(device): the record counts \(record.accepted) accepted; APNs accepted \(ordered.count) (\(distinct) distinct apns-ids)"))
            }
        }
        return Report(violations: violations, devices: seen.count, accepted: seen.values.reduce(0) { $0 + $1.count })
    }

    private func violation(_ push: MockAPNsDelivery, _ detail: String) -> MatchDayViolation {
        MatchDayViolation(rule: .recordDisagrees, token: PushLogRules.mask(push.token), sequences: push.sequence.map { [$0] } ?? [], detail: detail)
    }

    /// The record's kind of a push APNs accepted, from its push type, `aps.event` and priority.
    public static func kind(of push: MockAPNsDelivery) -> String {
        switch push.pushType {
        case "background": return "background"
        case "alert": return "alert"
        default: break
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(push.payload.utf8)) as? [String: Any],
              let aps = object["aps"] as? [String: Any], let event = aps["event"] as? String else { return "unknown" }
        switch event {
        case "start": return "start"
        case "end": return "end"
        default: return push.priority >= 10 ? "key_event" : "update"
        }
    }
}

import DevStack
import Foundation
import Synchronization
import Runtime

/// Every push mock-apns accepted during the run (read incrementally with `/mock/deliveries?since=`)
/// and which simulated device each token belongs to (device-sim's `/devices`, sampled during the
/// run so rotated activity tokens are remembered too). From these: the alerts each device got and
/// its duplicate pushes.
final class PushLedger: Sendable {
    struct Delivery: Decodable, Sendable {
        var apnsID: String
        var token: String
        var priority: Int
        var pushType: String
        var payload: String
        var sequence: Int?
    }

    /// What one device received.
    struct DeviceReport: Sendable {
        var deviceId: String
        var pushes: Int
        /// "title|body" of every alert-bearing push.
        var alerts: Set<String>
        /// Pushes whose apns-id this device had already received.
        var duplicateIDs: Int
        /// Pushes whose exact payload this device's same token had already received (under another apns-id).
        var duplicatePayloads: Int
        /// The duplicates by what they were: `aps.event` (start, update, end) plus "+alert" when
        /// the push carried one, and "same-id" or "new-id".
        var duplicateKinds: [String: Int] = [:]
        var duplicates: Int { duplicateIDs + duplicatePayloads }
    }

    private let mock: MockAPNsControl
    private let simURL: String
    private let state = LockedValue<(deliveries: [Delivery], cursor: Int, owners: [String: String], matches: [String: String])>(([], 0, [:], [:]))
    private let task = LockedValue<Task<Void, Never>?>(nil)

    init(mock: MockAPNsControl, simURL: String) {
        self.mock = mock
        self.simURL = simURL
    }

    /// Polls the mock and device-sim every second until `stop()`.
    func start() {
        task.withLock { $0 = Task { [self] in
            while !Task.isCancelled {
                await refresh()
                try? await Task.sleep(for: .seconds(1))
            }
        } }
    }

    func stop() async {
        let running = task.withLock { task -> Task<Void, Never>? in defer { task = nil }; return task }
        running?.cancel()
        _ = await running?.value
    }

    /// One read of new deliveries (bounded pages) and of the devices' tokens.
    func refresh() async {
        for _ in 0..<50 {
            let cursor = state.withLock { $0.cursor }
            guard let response = try? await mock.send("GET", "/mock/deliveries?since=\(cursor)&limit=2000"),
                  let page = try? JSONDecoder().decode([Delivery].self, from: Data(response.body)), !page.isEmpty else { break }
            state.withLock { state in
                state.deliveries.append(contentsOf: page)
                state.cursor = page.compactMap(\.sequence).max() ?? state.cursor + page.count
            }
            if page.count < 2000 { break }
        }
        if let devices: [SimDeviceTokens] = try? await DevHTTP(timeout: 5).getJSON(simURL + "/devices") {
            state.withLock { state in
                for device in devices {
                    for token in device.allTokens {
                        state.owners[token] = device.deviceId
                    }
                    for activity in device.activities {
                        if let token = activity.token { state.matches[token] = activity.matchId }
                    }
                }
            }
        }
    }

    /// The device each token seen so far belongs to.
    var owners: [String: String] { state.withLock { $0.owners } }
    /// The match of each activity update token seen so far (a device's own and push-to-start tokens serve every match).
    var tokenMatches: [String: String] { state.withLock { $0.matches } }

    /// Accepted pushes recorded so far (all tokens, this run's mock only).
    var totalPushes: Int { state.withLock { $0.deliveries.count } }

    /// Per device: pushes, alerts and duplicates.
    func reports() -> [String: DeviceReport] {
        let (deliveries, owners) = state.withLock { ($0.deliveries, $0.owners) }
        var reports: [String: DeviceReport] = [:]
        var ids: [String: Set<String>] = [:]
        var payloads: [String: Set<String>] = [:]
        for delivery in deliveries {
            guard let device = owners[delivery.token] else { continue }
            var report = reports[device] ?? DeviceReport(deviceId: device, pushes: 0, alerts: [], duplicateIDs: 0, duplicatePayloads: 0)
            report.pushes += 1
            let alert = Self.alert(delivery.payload)
            let kind = (Self.event(delivery.payload) ?? "none") + (alert == nil ? "" : "+alert")
            if !ids[device, default: []].insert(delivery.apnsID).inserted {
                report.duplicateIDs += 1
                report.duplicateKinds[kind + " same-id", default: 0] += 1
            } else if !payloads[device, default: []].insert(delivery.token + "\n" + delivery.payload).inserted {
                report.duplicatePayloads += 1
                report.duplicateKinds[kind + " new-id", default: 0] += 1
            }
            if let alert { report.alerts.insert(alert) }
            reports[device] = report
        }
        return reports
    }

    /// `aps.event` of a push body (start, update, end), if any.
    static func event(_ payload: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
              let aps = object["aps"] as? [String: Any] else { return nil }
        return aps["event"] as? String
    }

    /// "title|body" of `aps.alert` in a push body, if any.
    static func alert(_ payload: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
              let aps = object["aps"] as? [String: Any], let alert = aps["alert"] as? [String: Any],
              let title = alert["title"] as? String, let body = alert["body"] as? String else { return nil }
        return "\(title)|\(body)"
    }
}

/// A device-sim device's APNs tokens, as `/devices` lists them.
struct SimDeviceTokens: Decodable, Sendable {
    struct Activity: Decodable, Sendable {
        var matchId: String
        var token: String?
    }
    var deviceId: String
    var deviceToken: String
    var pushToStartToken: String
    var activities: [Activity]

    /// The device token, the push-to-start token and every activity's update token.
    var allTokens: [String] { [deviceToken, pushToStartToken] + activities.compactMap(\.token) }
}

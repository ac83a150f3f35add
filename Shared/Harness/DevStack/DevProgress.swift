import CricsheetReplay
import Foundation
import Kafka
import Runtime

/// One line of live progress: overs replayed (fake's admin API), match events (detector's
/// `detector_events_total`), pushes delivered (mock-apns `/mock/counters`), devices' view
/// (device-sim `/status`) and consumer lag of the services' groups (Kafka admin).
public struct DevProgress: Sendable, Equatable {
    public var replay: ReplayStatus?
    public var overs: String?
    public var events: Int?
    public var pushesAccepted: Int?
    /// Pushes mock-apns refused, by reason (e.g. "BadDeviceToken": 1).
    public var pushesRejected: [String: Int] = [:]
    /// Broadcasts mock-apns accepted and the copies it made to channel subscribers (nil/0: none).
    public var broadcastsAccepted: Int?
    public var broadcastCopies: Int?
    /// apns-sender's `push_freshness_seconds` p50 / p99 (poll that saw the ball → APNs accepted), over the run.
    public var freshnessP50: Double?
    public var freshnessP99: Double?
    public var devicePushes: Int?
    public var activitiesActive: Int?
    public var lag: Int64?

    /// "overs 12.3 (inn 1, 75/251 deliveries, running) | events 80 | pushes 140 (+1 rejected: 1 Unregistered) | broadcasts 68 → 272 copies |
    /// fresh p50 850 ms p99 2.4 s | devices: 6 active, 410 received | lag 0"
    public var line: String {
        var parts: [String] = []
        if let replay {
            parts.append("overs \(overs ?? "-") (\(replay.deliveries)/\(replay.totalDeliveries) deliveries, \(replay.phase))")
        } else {
            parts.append("overs -")
        }
        parts.append("events \(events.map(String.init) ?? "-")")
        var pushes = "pushes \(pushesAccepted.map(String.init) ?? "-")"
        if !pushesRejected.isEmpty {
            let reasons = pushesRejected.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            pushes += " (+\(pushesRejected.values.reduce(0, +)) rejected: \(reasons))"
        }
        parts.append(pushes)
        if let broadcasts = broadcastsAccepted, broadcasts > 0 { parts.append("broadcasts \(broadcasts) → \(broadcastCopies ?? 0) copies") }
        if let p50 = freshnessP50, let p99 = freshnessP99 {
            parts.append("fresh p50 \(SecondsText.of(p50)) p99 \(SecondsText.of(p99))")
        }
        if let devicePushes { parts.append("devices: \(activitiesActive ?? 0) active, \(devicePushes) received") }
        parts.append("lag \(lag.map(String.init) ?? "-")")
        return parts.joined(separator: " | ")
    }
}

/// Collects `DevProgress` from a running stack; each source is optional (a missing one shows "-").
public final class DevProgressProbe: Sendable {
    private let stack: DevStack
    private let mock: MockAPNsControl?
    private let admin: KafkaAdmin?
    private let match: CricsheetMatch?

    public init(stack: DevStack) {
        self.stack = stack
        mock = try? MockAPNsControl(port: stack.options.ports.mockAPNs, caFile: stack.plan.material.certificateFile.path)
        admin = try? KafkaAdmin(configuration: KafkaAdminConfiguration(cluster: stack.options.kafkaCluster, clientId: "dev-progress"),
                                logger: Logger(label: "dev-progress", minimumLevel: .error))
        match = try? CricsheetMatch.load(contentsOf: stack.options.matchFile)
    }

    /// Samples every source once (each with a short timeout).
    public func sample() async -> DevProgress {
        var progress = DevProgress()
        let http = DevHTTP(timeout: 2)
        progress.replay = try? await stack.replayStatus()
        if let replay = progress.replay, let match { progress.overs = Self.overs(match, deliveries: replay.deliveries) }
        if let url = stack.plan.serviceURL("detector"), let reply = try? await http.get(url + "/metrics"), reply.status == 200 {
            progress.events = Int(PrometheusText.sum(reply.text, metric: "detector_events_total"))
        }
        if let url = stack.plan.serviceURL("apns-sender"), let reply = try? await http.get(url + "/metrics"), reply.status == 200 {
            progress.freshnessP50 = PrometheusText.quantile(0.5, reply.text, histogram: "push_freshness_seconds")
            progress.freshnessP99 = PrometheusText.quantile(0.99, reply.text, histogram: "push_freshness_seconds")
        }
        if let counters = try? await mock?.counters() {
            progress.pushesAccepted = counters.accepted
            progress.pushesRejected = counters.rejected.filter { $0.value > 0 }
            progress.broadcastsAccepted = counters.broadcastsAccepted
            progress.broadcastCopies = counters.broadcastCopies
        }
        struct SimStatus: Decodable { var pushesReceived: Int?; var activitiesActive: Int? }
        if let status: SimStatus = try? await http.getJSON(stack.plan.deviceSimulatorURL + "/status") {
            progress.devicePushes = status.pushesReceived
            progress.activitiesActive = status.activitiesActive
        }
        if let admin {
            var total: Int64 = 0
            var any = false
            for (group, topic) in stack.options.consumerGroups.all {
                if let entries = try? await admin.lag(group: group, topics: [topic], timeout: .seconds(2)) {
                    total += entries.reduce(Int64(0)) { $0 + max(0, $1.lag) }
                    any = true
                }
            }
            progress.lag = any ? total : nil
        }
        return progress
    }

    /// "inn 2 14.3": the innings and over (legal balls) after `deliveries` deliveries of `match`.
    public static func overs(_ match: CricsheetMatch, deliveries: Int) -> String {
        var remaining = deliveries
        var label = "inn 1 0.0"
        for (number, innings) in match.innings.enumerated() where remaining > 0 {
            var current = 0
            var legal = 0
            overs: for over in innings.overs {
                for delivery in over.deliveries {
                    guard remaining > 0 else { break overs }
                    remaining -= 1
                    if over.over != current { current = over.over; legal = 0 }
                    if delivery.isLegal { legal += 1 }
                }
            }
            label = legal >= 6 ? "inn \(number + 1) \(current + 1).0" : "inn \(number + 1) \(current).\(legal)"
        }
        return label
    }
}

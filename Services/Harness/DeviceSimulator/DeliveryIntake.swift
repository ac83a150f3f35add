import Foundation
import Runtime

/// The one polling loop for every device: pulls what mock-apns accepted since the last sequence
/// seen, routes each push by token to the device that owns it, and applies them — in order per
/// device, devices in parallel.
actor DeliveryIntake {
    private let source: any MockAPNsPort
    private let fleet: DeviceFleet
    private let batchLimit: Int
    private let logger: Logger
    private(set) var cursor = 0
    private(set) var unrouted = 0
    private(set) var routed = 0

    init(source: any MockAPNsPort, fleet: DeviceFleet, batchLimit: Int, logger: Logger) {
        self.source = source
        self.fleet = fleet
        self.batchLimit = batchLimit
        self.logger = logger
    }

    /// Fetches and applies one batch; returns how many deliveries it held. When nothing is new, checks
    /// that the delivery at the cursor still exists: if not, mock-apns restarted (its sequence began
    /// again at 1) and reading starts over from 0.
    @discardableResult
    func pollOnce() async throws -> Int {
        let subscriptions = fleet.directory.takePendingSubscriptions()
        for (index, subscription) in subscriptions.enumerated() {
            do {
                try await source.subscribe(channelId: subscription.channelId, subscriber: subscription.subscriber)
            } catch {
                fleet.directory.retry(Array(subscriptions[index...]))
                throw error
            }
        }
        let batch = try await source.deliveries(since: cursor, limit: batchLimit)
        if batch.isEmpty, cursor > 0, try await source.deliveries(since: cursor - 1, limit: 1).isEmpty {
            logger.info("mock-apns delivery log restarted; reading it from the start", ["event": "intake_rewound", "cursor": String(cursor)])
            cursor = 0
            return try await pollOnce()
        }
        await apply(batch)
        return batch.count
    }

    /// Routes and applies `batch` (ascending sequence) and advances the cursor past it.
    func apply(_ batch: [MockDelivery]) async {
        var perDevice: [Int: [(MockDelivery, DeliveryTokenKind)]] = [:]
        for delivery in batch {
            if let sequence = delivery.sequence { cursor = max(cursor, sequence) }
            guard let route = fleet.directory.route(delivery.token), let _ = fleet.device(index: route.deviceIndex) else {
                unrouted += 1
                continue
            }
            routed += 1
            perDevice[route.deviceIndex, default: []].append((delivery, route.kind))
        }
        guard !perDevice.isEmpty else { return }
        let fleet = self.fleet
        await withTaskGroup(of: Void.self) { group in
            for (index, items) in perDevice {
                guard let device = fleet.device(index: index) else { continue }
                let work = items.map { (delivery: $0.0, kind: $0.1) }
                group.addTask {
                    for item in work {
                        let delivery = item.delivery
                        await device.receive(payload: delivery.payload, kind: item.kind, copyOf: delivery.channelId == nil ? nil : delivery.apnsID,
                                             priority: delivery.priority, acceptedAt: delivery.receivedAt)
                    }
                }
            }
        }
    }

    /// Polls until cancelled: immediately again after a full batch, else after `interval`;
    /// failures (mock-apns not up yet, restarts) are logged and retried with bounded backoff.
    func run(interval: Duration) async {
        var failures = 0
        while !Task.isCancelled {
            do {
                let count = try await pollOnce()
                if failures > 0 { logger.info("mock-apns reachable again", ["event": "intake_recovered"]) }
                failures = 0
                if count >= batchLimit { continue }
                try await Task.sleep(for: interval)
            } catch is CancellationError {
                return
            } catch {
                failures += 1
                if failures == 1 || failures % 20 == 0 {
                    logger.warning("cannot read mock-apns deliveries", ["event": "intake_failed", "reason": String(describing: error), "failures": String(failures)])
                }
                do { try await Task.sleep(for: min(interval * Double(failures), .seconds(2))) } catch { return }
            }
        }
    }
}

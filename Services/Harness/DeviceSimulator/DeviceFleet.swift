import ClientCore
import Foundation
import Runtime

/// Every simulated device of a run, the token routing between them, and launch.
final class DeviceFleet: Sendable {
    let devices: [SimulatedDevice]
    let directory: TokenDirectory
    private let byId: [String: SimulatedDevice]

    /// Creates `configuration.deviceCount` devices; `backend(userId)` gives the api client of a user.
    init(configuration: SimulatorConfiguration, backend: (String) -> any BackendAPI) {
        let directory = TokenDirectory()
        var clients: [String: any BackendAPI] = [:]
        var devices: [SimulatedDevice] = []
        for index in 0..<configuration.deviceCount {
            let userId = configuration.userId(index)
            let api = clients[userId] ?? backend(userId)
            clients[userId] = api
            devices.append(SimulatedDevice(
                index: index, deviceId: configuration.deviceId(index), userId: userId, api: api, directory: directory,
                environment: configuration.environment, appVersion: configuration.appVersion,
                requestLocally: configuration.requestLocally, supportsChannels: configuration.supportsChannels(index),
                bannerDuration: .milliseconds(Int64(configuration.alertBannerSeconds * 1000))))
        }
        self.devices = devices
        self.directory = directory
        byId = Dictionary(uniqueKeysWithValues: devices.map { ($0.deviceId, $0) })
    }

    func device(id: String) -> SimulatedDevice? { byId[id] }

    func device(index: Int) -> SimulatedDevice? { devices.indices.contains(index) ? devices[index] : nil }

    /// Launches every device, `concurrency` at a time; returns how many reached `ready`.
    @discardableResult
    func launchAll(follow: [String], appVersion: String, concurrency: Int, logger: Logger) async -> Int {
        let devices = self.devices
        return await withTaskGroup(of: SimulatedDevice.LaunchState.self) { group in
            var next = 0
            var ready = 0
            while next < min(max(1, concurrency), devices.count) {
                let device = devices[next]
                group.addTask { await device.launch(follow: follow, appVersion: appVersion, logger: logger) }
                next += 1
            }
            while let state = await group.next() {
                if state == .ready { ready += 1 }
                if next < devices.count {
                    let device = devices[next]
                    group.addTask { await device.launch(follow: follow, appVersion: appVersion, logger: logger) }
                    next += 1
                }
            }
            return ready
        }
    }

    /// Every device's snapshot, in fleet order.
    func snapshots() async -> [DeviceSnapshot] {
        var result: [DeviceSnapshot] = []
        result.reserveCapacity(devices.count)
        for device in devices { result.append(await device.snapshot()) }
        return result
    }

    /// Totals over every device.
    func status(unrouted: Int, cursor: Int) async -> FleetStatus {
        var status = FleetStatus(
            devices: devices.count, devicesReady: 0, activitiesActive: 0, activitiesEnded: 0, pushesReceived: 0, startsReceived: 0,
            updatesReceived: 0, endsReceived: 0, otherReceived: 0, unrouted: unrouted, cursor: cursor)
        for snapshot in await snapshots() {
            if snapshot.launch == SimulatedDevice.LaunchState.ready.rawValue { status.devicesReady += 1 }
            for activity in snapshot.activities {
                if activity.state == ActivityState.active.rawValue || activity.state == ActivityState.stale.rawValue {
                    status.activitiesActive += 1
                } else {
                    status.activitiesEnded += 1
                }
            }
            status.pushesReceived += snapshot.pushesReceived
            status.startsReceived += snapshot.startsReceived
            status.updatesReceived += snapshot.updatesReceived
            status.endsReceived += snapshot.endsReceived
            status.otherReceived += snapshot.otherReceived
            status.channelCopiesReceived += snapshot.channelCopiesReceived
        }
        return status
    }
}

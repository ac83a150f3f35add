// device-sim: N simulated iPhones running the seeds' client logic (ClientCore) against the real
// api, receiving what mock-apns accepted for their tokens, with a control API and a Live Activity
// preview page. Flags and routes: see SimulatorConfiguration and SimulatorRoutes
// (E2E-INTERFACE.md). Logs: JSON lines on stderr.
import Foundation
import HTTPServer
import Runtime
import ServiceKit

let service = "device-sim"
let environment = ProcessInfo.processInfo.environment
let configuration = ServiceHost.loadConfiguration(service: service) {
    try SimulatorConfiguration.parse(Array(CommandLine.arguments.dropFirst()), environment: environment)
}
let logLevel = LogLevel(name: configuration.logLevel) ?? .info
/// Set by `sightscreen dev`: device-sim stops when its supervisor is gone.
let parentPID = ServiceHost.loadConfiguration(service: service) { try ParentWatch.parentPID(EnvironmentReader()) }
let minter = ServiceHost.loadConfiguration(service: service) {
    CachingTokenMinter(try TokenMinting.make(configuration, environment: environment), lifetime: 1800)
}
let mock = ServiceHost.loadConfiguration(service: service) {
    try MockAPNsControlClient(baseURL: configuration.mockAPNsURL, caFile: configuration.caFile)
}
let session = BackendHTTPClient.makeSession()
let fleet = DeviceFleet(configuration: configuration) { userId in
    BackendHTTPClient(baseURL: configuration.apiURL, userId: userId, minter: minter, session: session)
}
let intakeLogger = Logger(label: service, minimumLevel: logLevel).child("intake")
let intake = DeliveryIntake(source: mock, fleet: fleet, batchLimit: configuration.batchLimit, logger: intakeLogger)

await ServiceHost.run(
    name: service, options: ServiceOptions(httpPort: configuration.port, logLevel: logLevel, shutdownGrace: .milliseconds(500), readyDelay: .zero,
                            parentPID: parentPID),
    routes: { router, _ in SimulatorRoutes.install(on: &router, fleet: fleet, intake: intake, mock: mock) }
) { context in
    context.readiness.set("devices", false)
    context.logger.info("configured", [
        "api": configuration.apiURL, "mockApns": configuration.mockAPNsURL, "devices": String(configuration.deviceCount),
        "follow": configuration.follow.joined(separator: ","), "env": configuration.environment.rawValue,
    ])
    // One structured group, cancelled at shutdown: that reaches the polling loop and the launches.
    let readiness = context.readiness
    let logger = context.logger
    return [ClosureService("devices", cancelOnShutdown: true) {
    await withTaskGroup(of: Void.self) { group in
        group.addTask { await intake.run(interval: .milliseconds(configuration.pollMilliseconds)) }
        group.addTask {
            let started = ContinuousClock.now
            let ready = await fleet.launchAll(
                follow: configuration.follow, appVersion: configuration.appVersion, concurrency: configuration.launchConcurrency,
                logger: logger)
            let elapsed = ContinuousClock.now - started
            logger.info("devices launched", [
                "event": "devices_ready", "ready": String(ready), "devices": String(configuration.deviceCount),
                "seconds": String(format: "%.1f", elapsed.seconds),
            ])
            readiness.set("devices", ready == configuration.deviceCount)
        }
        // Launches done, keep polling until shutdown cancels the group.
        await group.waitForAll()
    }
    }]
}

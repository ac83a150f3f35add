import FakeFeed
import Foundation
import Runtime
import ServiceKit

// fake-sportmonks: the SportMonks Cricket API v2.0 replaying real Cricsheet matches, for dev and tests.
let logger = Logger(label: "fake-sportmonks")
let options: FakeSportmonksOptions
do {
    guard let parsed = try FakeSportmonksOptions.parse(Array(CommandLine.arguments.dropFirst()),
                                                       environment: ProcessInfo.processInfo.environment) else {
        FileHandle.standardOutput.write(Data((FakeSportmonksOptions.help + "\n").utf8))
        exit(0)
    }
    options = parsed
} catch {
    logger.error("\(error)", ["event": "start_failed"])
    FileHandle.standardError.write(Data((FakeSportmonksOptions.help + "\n").utf8))
    exit(64)
}

let feed: FakeFeed
do {
    feed = try FakeFeed(directory: URL(fileURLWithPath: options.matchesDirectory), configuration: options.feed)
} catch {
    logger.error("cannot load matches: \(error)", ["event": "start_failed"])
    exit(66)
}
let unknownLive = options.feed.liveMatchIds.map { $0 + options.feed.idOffset }.filter { feed.match($0) == nil }
if !unknownLive.isEmpty {
    logger.error("--live names matches not in \(options.matchesDirectory): \(unknownLive.sorted())", ["event": "start_failed"])
    exit(64)
}
let server = FakeSportMonksServer(feed: feed, host: options.host, port: options.port, logger: logger.child("http"))
do { try server.start() } catch {
    logger.error("cannot listen: \(error)", ["event": "start_failed"])
    exit(1)
}
logger.info("serving", ["event": "started", "url": server.baseURL, "matches": String(feed.fixtureIds.count),
                        "live": feed.liveFixtureIds().map(String.init).joined(separator: ","),
                        "speed_deliveries_per_second": String(options.feed.speed)])
let shutdown = ShutdownSignal()
let parentWatch = ParentWatch.fromEnvironment(signal: shutdown, logger: logger)
let signal = await shutdown.wait()
logger.info("stopping", ["event": "shutdown", "signal": signal.map(String.init) ?? "none"])
await server.stop()
exit(0)

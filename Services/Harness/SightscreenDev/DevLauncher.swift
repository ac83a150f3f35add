import CommandLineSupport
import DevStack
import Foundation
import Kafka
import Runtime
import ServiceKit

/// `sightscreen dev [--match ID] [--also ID,ID] [--speed X] [--devices N] [--channel-share X] [--cricsheet DIR] [--free-ports] [--prometheus] [--exit-when-done]`:
/// the one-command demo. Starts mock-apns, fake-sportmonks (the match scheduled, not yet live),
/// the five services and device-sim (whose devices follow the match before it goes live; two thirds of them
/// on the match's broadcast channel unless `--channel-share` says otherwise, 0 turning broadcast off), starts
/// the replay a few seconds later, prints a progress line every second and the preview URL. `--also` replays more matches
/// live at the same time (a match day), every device following each; the progress line and `--exit-when-done` follow the first. With `--prometheus`,
/// Debian's Prometheus scrapes the five services every 2 s and evaluates deploy/prometheus/alerts.yml as shipped; its
/// URL and a graph of the freshness quantiles are printed.
/// Ctrl-C (or SIGTERM) stops every process it started, last started first.
struct DevLauncher {
    static let defaultMatch = 1415755  // T20 World Cup final 2024, India v South Africa (251 deliveries)

    let console: Console
    let environment: EnvironmentReader

    struct Settings {
        var match = DevLauncher.defaultMatch
        var otherMatches: [Int] = []
        var speed = 2.0
        var devices = 6
        var channelShare = DevStackOptions.mixedFleetChannelShare
        var cricsheet: String?
        var freePorts = false
        var prometheus = false
        var exitWhenDone = false
    }

    static func parse(_ arguments: ArraySlice<String>) throws -> Settings {
        var settings = Settings()
        var iterator = arguments.makeIterator()
        func value(_ flag: String) throws -> String {
            guard let next = iterator.next() else { throw UsageError(message: "\(flag) needs a value") }
            return next
        }
        while let flag = iterator.next() {
            switch flag {
            case "--match":
                guard let id = Int(try value(flag)), id > 0 else { throw UsageError(message: "--match needs a Cricsheet id") }
                settings.match = id
            case "--also":
                let ids = try value(flag).split(separator: ",").map { Int($0) }
                guard !ids.isEmpty, ids.allSatisfy({ ($0 ?? 0) > 0 }) else { throw UsageError(message: "--also needs Cricsheet ids, comma-separated") }
                settings.otherMatches = ids.compactMap { $0 }
            case "--speed":
                guard let speed = Double(try value(flag)), speed > 0, speed <= 1000 else {
                    throw UsageError(message: "--speed needs deliveries per second in (0, 1000]")
                }
                settings.speed = speed
            case "--devices":
                guard let devices = Int(try value(flag)), (0...10_000).contains(devices) else {
                    throw UsageError(message: "--devices needs a count in 0...10000")
                }
                settings.devices = devices
            case "--channel-share":
                guard let share = Double(try value(flag)), (0...1).contains(share) else {
                    throw UsageError(message: "--channel-share needs the share of devices on broadcast channels in 0...1 (0: broadcast off)")
                }
                settings.channelShare = share
            case "--cricsheet": settings.cricsheet = try value(flag)
            case "--free-ports": settings.freePorts = true
            case "--prometheus": settings.prometheus = true
            case "--exit-when-done": settings.exitWhenDone = true
            default: throw UsageError(message: "dev: unknown option \(flag)")
            }
        }
        return settings
    }

    /// The Cricsheet folder: --cricsheet, CRICSHEET_DIR, or ../shared/data/cricsheet next to the
    /// checkout (one or two levels up, for git worktrees).
    func cricsheetDirectory(_ settings: Settings, root: URL) -> URL {
        if let path = settings.cricsheet ?? environment.raw("CRICSHEET_DIR") { return URL(fileURLWithPath: path) }
        let candidates = [root.deletingLastPathComponent(), root.deletingLastPathComponent().deletingLastPathComponent()]
            .map { $0.appendingPathComponent("shared/data/cricsheet") }
        return candidates.first { FileManager.default.fileExists(atPath: $0.path) } ?? candidates[0]
    }

    func run(_ arguments: ArraySlice<String>) async throws {
        var settings = try Self.parse(arguments)
        let root = URL(fileURLWithPath: environment.raw("SIGHTSCREEN_ROOT") ?? FileManager.default.currentDirectoryPath)
        let stackDirectory = URL(fileURLWithPath: environment.raw("STACK_DIR") ?? root.appendingPathComponent(".stack").path)
        // DEV_BIN_DIR: where the processes' executables are (default: next to this one); scripts/image-check points it
        // at wrappers that run the services from the container image.
        let binDirectory = environment.raw("DEV_BIN_DIR").map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        if settings.devices > 0, !FileManager.default.isExecutableFile(atPath: binDirectory.appendingPathComponent("device-sim").path) {
            console.error("dev: device-sim is not built in \(binDirectory.path); running without simulated devices")
            settings.devices = 0
        }
        var options = DevStackOptions(
            binDirectory: binDirectory, logDirectory: stackDirectory.appendingPathComponent("logs"),
            materialDirectory: stackDirectory.appendingPathComponent("dev"),
            cricsheetDirectory: cricsheetDirectory(settings, root: root), matchId: settings.match,
            idOffset: DevStackOptions.freshIdOffset(), speed: settings.speed, devices: settings.devices,
            channelShare: settings.channelShare, ports: settings.freePorts ? try DevPorts.free() : DevPorts(),
            kafkaBrokers: environment.string("KAFKA_BROKERS", default: "127.0.0.1:19092"),
            databaseURL: environment.string("DATABASE_URL", default: "postgresql://sightscreen@127.0.0.1:55432/sightscreen"),
            logLevel: environment.string("LOG_LEVEL", default: "info"))
        var seen: Set<Int> = [settings.match]
        options.otherMatchIds = settings.otherMatches.filter { seen.insert($0).inserted }
        do {
            options.kafkaCluster = try KafkaCluster(environment)
        } catch {
            throw UsageError(message: "\(error)")
        }
        if settings.prometheus {
            do {
                options.prometheus = try DevPrometheus.locate(root: root, environment: ProcessInfo.processInfo.environment, intervalSeconds: 2)
            } catch {
                throw UsageError(message: "--prometheus: \(error)")
            }
        }
        for file in options.matchFiles where !FileManager.default.fileExists(atPath: file.path) {
            throw UsageError(message: "no Cricsheet match \(file.path) (--match ID, --also IDs, --cricsheet DIR or CRICSHEET_DIR)")
        }
        let stack = try DevStack(plan: DevStackPlan(options: options), logger: Logger(label: "dev", minimumLevel: .warning))
        let shutdown = ShutdownSignal()
        let fleet = options.broadcastEnabled
            ? "\(settings.devices) devices (\(Int((settings.channelShare * 100).rounded())) % on broadcast channels)" : "\(settings.devices) devices (tokens only)"
        console.line("sightscreen dev: replaying Cricsheet \(settings.match) as fixture \(options.fixtureId) at \(settings.speed) deliveries/s, \(fleet)")
        if !options.otherMatchIds.isEmpty {
            console.line("  also live: Cricsheet \(options.otherMatchIds.map(String.init).joined(separator: ", ")) as fixtures \(options.fixtureIds.dropFirst().map(String.init).joined(separator: ", "))")
        }
        console.line("  logs: \(options.logDirectory.path)/<process>.log   Ctrl-C stops everything this command started")

        let launch = Task { try await stack.launch() }
        while shutdown.received == nil, !(await DevLauncher.finished(launch)) {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if shutdown.received != nil {
            launch.cancel()
            _ = await launch.result
            return await stop(stack, reason: "interrupted during start-up")
        }
        if case .failure(let error) = await launch.result {
            console.error("dev: \(error)")
            await stop(stack, reason: "start-up failed")
            throw ExitCode(status: 1)
        }
        await announce(stack)
        let status = await monitor(stack, shutdown: shutdown, exitWhenDone: settings.exitWhenDone)
        await stop(stack, reason: shutdown.received != nil ? "Ctrl-C" : "done")
        if status != 0 { throw ExitCode(status: status) }
    }

    private static func finished(_ task: Task<Void, any Error>) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { _ = await task.result; return true }
            group.addTask { try? await Task.sleep(for: .milliseconds(50)); return false }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    private func announce(_ stack: DevStack) async {
        let plan = stack.plan
        let title = (try? await stack.replayStatus())?.title ?? "match"
        console.line("live: \(title) (fixture \(stack.options.fixtureId))")
        struct Device: Decodable { var deviceId: String }
        if stack.options.devices > 0, let devices: [Device] = try? await DevHTTP().getJSON(plan.deviceSimulatorURL + "/devices"),
           let first = devices.first {
            console.line("  preview: \(plan.deviceSimulatorURL)/preview/all?match=\(stack.options.fixtureId) (every device; one: /preview?device=\(first.deviceId))")
        }
        console.line("  api \(plan.apiURL)  feed admin \(plan.fakeURL)/admin/matches  mock-apns \(plan.mockAPNsURL)/mock/counters")
        if stack.options.prometheus != nil {
            let graph = stack.prometheus.graphURL(
                ["0.5", "0.99"].map { "histogram_quantile(\($0), sum by (le, priority) (rate(push_freshness_seconds_bucket[1m])))" })
            console.line("  prometheus \(plan.prometheusURL)  alerts \(plan.prometheusURL)/alerts  freshness graph \(graph)")
        }
    }

    /// Prints progress every second until Ctrl-C (or, with `exitWhenDone`, until the match is over
    /// and the pipeline drained); returns the exit status.
    private func monitor(_ stack: DevStack, shutdown: ShutdownSignal, exitWhenDone: Bool) async -> Int32 {
        let probe = DevProgressProbe(stack: stack)
        let interactive = isatty(STDOUT_FILENO) == 1
        var drainedSince: ContinuousClock.Instant?
        var announcedEnd = false
        while shutdown.received == nil {
            let dead = await stack.supervisor.exited()
            if !dead.isEmpty {
                if interactive { console.line("") }
                for name in dead {
                    console.error("dev: \(name) exited unexpectedly; log tail:\n\((try? await stack.supervisor.logTail(name)) ?? "")")
                }
                return 1
            }
            let progress = await probe.sample()
            if interactive {
                FileHandle.standardOutput.write(Data(("\r\u{1B}[K" + progress.line).utf8))
            } else {
                console.line(progress.line)
            }
            if let replay = progress.replay, replay.finished, progress.lag == 0 {
                drainedSince = drainedSince ?? .now
                if !announcedEnd, let since = drainedSince, ContinuousClock.now - since > .seconds(3) {
                    announcedEnd = true
                    if interactive { console.line("") }
                    console.line("match over: \(await finalLine(stack)); Ctrl-C stops the demo")
                    if exitWhenDone { return 0 }
                }
            } else {
                drainedSince = nil
            }
            try? await Task.sleep(for: .seconds(1))
        }
        if interactive { console.line("") }
        return 0
    }

    /// The detector's final result line and headline from `active_matches.display_state`.
    private func finalLine(_ stack: DevStack) async -> String {
        let rows = try? await stack.postgres.query(
            "SELECT display_state->>'resultLine', display_state->'lockScreen'->>'headline' FROM active_matches WHERE match_id = $1",
            [String(stack.options.fixtureId)])
        guard let row = rows?.first else { return "no display state" }
        let result = (try? row.decode(0, as: String.self)) ?? "-"
        let headline = (try? row.decode(1, as: String.self)) ?? "-"
        return "\(headline) — \(result)"
    }

    private func stop(_ stack: DevStack, reason: String) async {
        let count = await stack.supervisor.statuses().count
        console.line("stopping \(count) processes (\(reason))…")
        await stack.shutdown(grace: .seconds(10))
        console.line("stopped")
    }
}

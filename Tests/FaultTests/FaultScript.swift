import DevStack
import PipelineTestSupport
import Foundation
import Runtime
import SharedTestSupport

/// One fault the suite injects while the match is live, and what it saw happen.
struct FaultObservation: Sendable, CustomStringConvertible {
    var fault: String
    /// Replay position when the fault started ("143/251").
    var at: String
    var seconds: Double
    var detail: String
    /// When it was injected and when it was over (Unix ms, the clock mock-apns stamps pushes with).
    var window: ClosedRange<Int64>
    var description: String { "\(fault) @\(at) [\(String(format: "%.1f", seconds)) s]: \(detail)" }
}

/// The faults, in order: stalls (the broker paused 20 s, one consumer paused past its session
/// timeout, every PostgreSQL process paused 20 s), kill -9 + restart of each service, a PostgreSQL
/// restart, mock-apns storms (429, 500, GOAWAY every N streams, slow answers), and bad
/// fake-sportmonks responses.
enum Fault: Sendable, CustomStringConvertible {
    /// SIGSTOP of the Kafka broker (Tansu) for `seconds`, then SIGCONT: consumers' sessions expire.
    case pauseBroker(seconds: Double)
    /// SIGSTOP of one service for `seconds` (past its 6 s session timeout), then SIGCONT.
    case pauseService(String, seconds: Double)
    /// SIGSTOP of every PostgreSQL server process for `seconds`, then SIGCONT.
    case pausePostgres(seconds: Double)
    case kill(String)
    /// SIGTERM, then start again (a rolling deploy of one replica).
    case restart(String)
    case restartPostgres
    case apns(String, json: String, seconds: Double)
    /// APNs throttling one device (429 for every push to its tokens), as Apple does per token.
    case throttleDevice(seconds: Double)
    case feed(String, count: Int)

    static let script: [Fault] = [
        .pauseBroker(seconds: 20), .pauseService("detector", seconds: 12), .pausePostgres(seconds: 20),
    ] + PlanOrder.services.map { .kill($0) } + [
        .restart("la-coordinator"), .restart("api"),
        .restartPostgres,
        .apns("429 storm", json: #"{"tooManyRequestsRate": 1.0}"#, seconds: 2),
        .apns("500 storm", json: #"{"internalErrorRate": 1.0}"#, seconds: 2),
        .apns("503 + 429 partial storm (30 %)", json: #"{"serviceUnavailableRate": 0.15, "tooManyRequestsRate": 0.15}"#, seconds: 4),
        .apns("GOAWAY every 5 streams", json: #"{"goAwayAfterStreams": 5}"#, seconds: 4),
        .apns("slow answers 800 ms", json: #"{"latencyMilliseconds": 800}"#, seconds: 4),
        .throttleDevice(seconds: 8),
        .feed("truncated", count: 3), .feed("garbage", count: 3), .feed("missing_fields", count: 3),
        .feed("score_backwards", count: 3), .feed("500", count: 3), .feed("429", count: 2),
    ]

    enum PlanOrder { static let services = ["poller", "detector", "la-coordinator", "apns-sender", "api"] }

    var description: String {
        switch self {
        case .pauseBroker(let seconds): "broker paused \(Int(seconds)) s"
        case .pauseService(let name, let seconds): "\(name) paused \(Int(seconds)) s"
        case .pausePostgres(let seconds): "PostgreSQL (every process) paused \(Int(seconds)) s"
        case .kill(let name): "kill -9 \(name)"
        case .restart(let name): "restart (SIGTERM) \(name)"
        case .restartPostgres: "restart PostgreSQL"
        case .apns(let name, _, _): "mock-apns \(name)"
        case .throttleDevice(let seconds): "mock-apns throttles one device for \(Int(seconds)) s"
        case .feed(let kind, let count): "feed \(kind) ×\(count)"
        }
    }
}

/// Injects faults into a running `DevStack`.
struct FaultInjector {
    let stack: DevStack
    let mock: MockAPNsControl
    let events: MatchEventsCollector
    let logger: Logger

    /// Injects `fault`, waits until it is over (restarted, cleared or consumed — each wait bounded)
    /// and says what happened. Throws when the stack did not come back.
    func inject(_ fault: Fault) async throws -> FaultObservation {
        let replay = try? await stack.replayStatus()
        let at = replay.map { "\($0.deliveries)/\($0.totalDeliveries)" } ?? "?"
        let started = ContinuousClock.now
        let startedAt = Self.unixMilliseconds()
        let detail: String
        switch fault {
        case .pauseBroker(let seconds):
            let pid = try ProcessPause.pid(inFile: FaultEnvironment.brokerPidFile)
            detail = try await pause([pid], for: seconds, paused: nil)
        case .pauseService(let name, let seconds):
            guard let status = await stack.supervisor.statuses().first(where: { $0.name == name }), status.running else {
                throw PipelineTestFailure("\(name) is not running")
            }
            detail = try await pause([status.pid], for: seconds, paused: name)
        case .pausePostgres(let seconds):
            detail = try await pause(try ProcessPause.postgresProcesses(), for: seconds, paused: nil)
        case .kill(let name):
            try await stack.supervisor.killAndRestart(name)
            detail = "killed with SIGKILL, restarted and ready again"
        case .restart(let name):
            try await stack.supervisor.restart(name)
            detail = "stopped with SIGTERM, started and ready again"
        case .restartPostgres:
            detail = try await restartPostgres()
        case .apns(_, let json, let seconds):
            let before = try await mock.countersJSON()
            _ = try await mock.send("POST", "/mock/faults", json: json)
            try await Task.sleep(for: .seconds(seconds))
            _ = try await mock.send("POST", "/mock/faults", json: "{}")
            let after = try await mock.countersJSON()
            detail = Self.counterDelta(before, after)
        case .throttleDevice(let seconds):
            let devices: [SimDeviceTokens] = try await DevHTTP(timeout: 5).getJSON(stack.plan.deviceSimulatorURL + "/devices")
            guard let device = devices.min(by: { $0.deviceId < $1.deviceId }) else { throw PipelineTestFailure("device-sim lists no devices") }
            let faults = try JSONSerialization.data(withJSONObject: ["throttledTokens": device.allTokens])
            let before = try await mock.countersJSON()
            _ = try await mock.send("POST", "/mock/faults", json: String(decoding: faults, as: UTF8.self))
            try await Task.sleep(for: .seconds(seconds))
            _ = try await mock.send("POST", "/mock/faults", json: "{}")
            let after = try await mock.countersJSON()
            detail = "\(device.deviceId) (\(device.allTokens.count) tokens): " + Self.counterDelta(before, after)
        case .feed(let kind, let count):
            let body = #"{"kind": "\#(kind)", "count": \#(count), "retryAfter": 1}"#
            let url = stack.plan.fakeURL + "/admin/faults"
            let reply = try await stack.feedAdmin.post(url, json: body)
            guard reply.status == 200 else { throw PipelineTestFailure("POST \(url) \(body): HTTP \(reply.status) \(reply.text.prefix(200))") }
            let deadline = ContinuousClock.now + .seconds(30)
            var pending = true
            while pending, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                pending = (try? await stack.feedAdmin.get(url).text).map { $0 != "[]" } ?? true
            }
            detail = pending ? "NOT all served by the fake within 30 s" : "all \(count) bad responses served to the poller"
        }
        let dead = await stack.supervisor.exitReports()
        guard dead.isEmpty else { throw PipelineTestFailure("after \(fault): exited: \(dead.joined(separator: "; "))") }
        let observation = FaultObservation(fault: fault.description, at: at,
                                           seconds: Double((ContinuousClock.now - started).components.attoseconds) / 1e18
                                               + Double((ContinuousClock.now - started).components.seconds),
                                           detail: detail, window: startedAt...Self.unixMilliseconds())
        logger.info("fault", ["fault": observation.description])
        return observation
    }

    /// Pauses `pids` for `seconds`, watching the other services' `/ready` meanwhile (`paused` names
    /// the service being paused, which cannot answer), resumes them, and waits (bounded) until every
    /// service is ready again and the match moves again (a new match event).
    private func pause(_ pids: [Int32], for seconds: Double, paused: String?) async throws -> String {
        let services = DevStackPlan.serviceNames.compactMap { name in stack.plan.serviceURL(name).map { (name, $0 + "/ready") } }
        let watched = services.filter { $0.0 != paused }
        let http = DevHTTP(timeout: 1)
        try ProcessPause.stop(pids)
        let resumeAt = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        var notReady: Set<String> = []
        do {
            while ContinuousClock.now < resumeAt {
                for (name, url) in watched where !notReady.contains(name) {
                    if let reply = try? await http.get(url), reply.status != 200 { notReady.insert(name) }
                }
                try await Task.sleep(for: .milliseconds(500))
            }
        } catch {
            ProcessPause.resume(pids)
            throw error
        }
        ProcessPause.resume(pids)
        let resumed = ContinuousClock.now
        let eventsBefore = events.eventsSeen
        let ready = DevHTTP(timeout: 5)
        try await stack.waitFor("every service ready again after the pause", timeout: .seconds(120)) {
            for (_, url) in services {
                guard (try? await ready.get(url))?.status == 200 else { return false }
            }
            return true
        }
        let readyAfter = ContinuousClock.now - resumed
        var moving = "the replay had finished"
        if (try? await stack.replayStatus())?.finished != true {
            try await stack.waitFor("a new match event after the pause", timeout: .seconds(120)) { events.eventsSeen > eventsBefore }
            moving = "next match event \(Self.seconds(ContinuousClock.now - resumed)) after SIGCONT"
        }
        return "\(pids.count) process(es) stopped; /ready not ready during the pause: "
            + "\(notReady.isEmpty ? "none" : notReady.sorted().joined(separator: ","))"
            + "; every service ready \(Self.seconds(readyAfter)) after SIGCONT; \(moving)"
    }

    static func unixMilliseconds() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.1f s", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// `scripts/stack restart-postgres` with this run's STACK_DIR (pg_ctl restart -m fast), bounded to 120 s.
    private func restartPostgres() async throws -> String {
        let stackDirectory = PipelineEnvironment.stackDirectory
        let files = FileManager.default
        guard files.fileExists(atPath: stackDirectory.appendingPathComponent("pgdata.path").path)
            || files.fileExists(atPath: stackDirectory.appendingPathComponent("pgdata").path) else {
            throw PipelineTestFailure("STACK_DIR \(stackDirectory.path) does not hold the running PostgreSQL (no pgdata): "
                + "set STACK_DIR to the stack that scripts/stack servers started")
        }
        let script = PipelineEnvironment.root.appendingPathComponent("scripts/stack")
        let outputFile = stack.options.logDirectory.appendingPathComponent("restart-postgres.log")
        var environment = ProcessInfo.processInfo.environment
        environment["STACK_DIR"] = stackDirectory.path
        let status = try await ScriptRunner.run([script.path, "restart-postgres"], environment: environment,
                                                outputFile: outputFile, timeout: .seconds(120))
        let output = await DevLogFile.tail(outputFile, lines: 2).trimmingCharacters(in: .whitespacesAndNewlines)
        guard status == 0 else { throw PipelineTestFailure("scripts/stack restart-postgres exited \(status): \(output)") }
        return "pg_ctl restart -m fast: every connection of every service dropped; \(output.trimmingCharacters(in: .whitespacesAndNewlines))"
    }

    /// "429 TooManyRequests +57, goaways +3" from two `/mock/counters` answers.
    static func counterDelta(_ before: [String: Any], _ after: [String: Any]) -> String {
        var parts: [String] = []
        let accepted = (after["accepted"] as? Int ?? 0) - (before["accepted"] as? Int ?? 0)
        parts.append("accepted +\(accepted)")
        let rejectedBefore = before["rejected"] as? [String: Int] ?? [:]
        for (reason, count) in (after["rejected"] as? [String: Int] ?? [:]).sorted(by: { $0.key < $1.key }) {
            let delta = count - (rejectedBefore[reason] ?? 0)
            if delta > 0 { parts.append("rejected \(reason) +\(delta)") }
        }
        for key in ["goAwaysSent", "connections"] {
            let delta = (after[key] as? Int ?? 0) - (before[key] as? Int ?? 0)
            if delta > 0 { parts.append("\(key) +\(delta)") }
        }
        return parts.joined(separator: ", ")
    }
}

extension MockAPNsControl {
    /// `GET /mock/counters` as a JSON object (every field, including GOAWAYs and connections).
    func countersJSON() async throws -> [String: Any] {
        let response = try await send("GET", "/mock/counters")
        return (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]) ?? [:]
    }
}

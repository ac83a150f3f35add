import DevStack
import Foundation
import MatchDayCheck
import PipelineTestSupport
import Runtime

/// Issue 42's audience in small: while the faults run, followers of one match come and go through device-sim as people
/// do. One user unfollows the match (every device of the user has its activity ended) and, later and only while the
/// match is still live, follows it again (new activities by push-to-start); a device of another user dismisses its
/// activity on the Lock Screen (which the api takes as that user's unfollow). What actually happened decides what each device must show at the end (`expectation`).
struct Audience: Sendable {
    /// One step, run after the fault at `afterFault` (index into `Fault.script`).
    enum Step: Sendable, CustomStringConvertible {
        case unfollow(device: String)
        case follow(device: String)
        case dismiss(device: String)

        var description: String {
            switch self {
            case .unfollow(let device): "\(device) unfollows"
            case .follow(let device): "\(device) follows again"
            case .dismiss(let device): "\(device) dismisses its activity"
            }
        }
    }

    /// What a device must show for the audience's match at the end.
    enum Expectation: Sendable, Equatable {
        /// Followed throughout (or again): the final state, its activity ended by the match.
        case final
        /// The user unfollowed or dismissed and did not come back: its activity ended or dismissed (by the device, or by
        /// the end push's immediate dismissal), any content.
        case endedEarly
    }

    struct Device: Sendable, Decodable { var deviceId: String; var userId: String; var pushToStartToken: String }

    let simURL: String
    /// The match the audience comes and goes from.
    let match: String
    private(set) var steps: [Int: Step] = [:]
    /// The devices of each user (a user's unfollow and follow reach all of them).
    private var usersDevices: [String: [String]] = [:]
    private var deviceUser: [String: String] = [:]
    private var pushToStart: [String: String] = [:]
    private var following: [String: Bool] = [:]  // user → follows `match` now
    /// Devices that missed part of the match (their key events of `match` are not required).
    private(set) var leftAtSomePoint: Set<String> = []
    private(set) var performed: [String] = []
    /// The steps that ran, for the match-day record.
    private(set) var actions: [MatchDayAction] = []

    /// Picks the users: the second user's devices unfollow after the detector pause and follow again after the
    /// PostgreSQL restart; a device of the third user dismisses after the detector's kill -9. The first user's device is
    /// the throttle fault's, so it is left alone. Fewer than three users: no audience.
    init(simURL: String, match: String, devices: [Device]) {
        self.simURL = simURL
        self.match = match
        for device in devices.sorted(by: { $0.deviceId < $1.deviceId }) {
            usersDevices[device.userId, default: []].append(device.deviceId)
            deviceUser[device.deviceId] = device.userId
            pushToStart[device.deviceId] = device.pushToStartToken
            following[device.userId] = true
        }
        let users = devices.sorted { $0.deviceId < $1.deviceId }.map(\.userId).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        guard users.count >= 3, let leaver = usersDevices[users[1]]?.first, let dismisser = usersDevices[users[2]]?.first else { return }
        let script = Fault.script.map(\.description)
        func after(_ fault: String) -> Int { script.firstIndex(of: fault) ?? 0 }
        steps[after("detector paused 12 s")] = .unfollow(device: leaver)
        steps[after("kill -9 detector")] = .dismiss(device: dismisser)
        steps[after("restart PostgreSQL")] = .follow(device: leaver)
    }

    /// Runs the step due after fault `index`, if any, retrying while the api recovers from the fault; a follow is
    /// skipped once the match's replay finished (there is nothing to follow).
    mutating func perform(afterFault index: Int, stack: DevStack, logger: Logger) async throws {
        guard let step = steps[index] else { return }
        let (kind, device): (MatchDayAction.Kind, String) = switch step {
        case .unfollow(let device): (.unfollow, device)
        case .follow(let device): (.follow, device)
        case .dismiss(let device): (.dismiss, device)
        }
        if case .follow = step, try await stack.replayStatus(fixture: Int(match)).finished {
            performed.append("\(step): skipped, the match had finished")
            return
        }
        let user = deviceUser[device] ?? ""
        actions.append(try await Self.act(kind, device: device, match: match, simURL: simURL, stack: stack,
                                          pushToStartTokens: (usersDevices[user] ?? []).compactMap { pushToStart[$0] }))
        switch step {
        case .unfollow:
            following[user] = false
            leftAtSomePoint.formUnion(usersDevices[user] ?? [])
        case .follow: following[user] = true
        case .dismiss:
            // The api treats a dismissal as the user's unfollow: the user's other devices have theirs ended too.
            following[user] = false
            leftAtSomePoint.formUnion(usersDevices[user] ?? [])
        }
        performed.append(step.description)
        logger.info("audience", ["step": step.description, "match": match])
    }

    /// Asks device-sim for `kind` on `device` and `match` until it answers 200 (the api may be recovering from a fault),
    /// and logs it with the time of the attempt that succeeded.
    static func act(_ kind: MatchDayAction.Kind, device: String, match: String, simURL: String, stack: DevStack,
                    pushToStartTokens: [String]) async throws -> MatchDayAction {
        let url = "\(simURL)/devices/\(device)/\(kind.rawValue)?match=\(match)"
        let askedAt = LockedValue<Int64>(0)
        try await stack.waitFor("device-sim: \(device) \(kind.rawValue) \(match)", timeout: .seconds(90)) {
            askedAt.withLock { $0 = Int64(Date().timeIntervalSince1970 * 1000) }
            return try await DevHTTP(timeout: 20).post(url).status == 200
        }
        return MatchDayAction(kind: kind, device: device, match: match, at: askedAt.withLock { $0 }, pushToStartTokens: pushToStartTokens)
    }

    /// What `device` must show for `match` at the end.
    func expectation(_ device: String) -> Expectation {
        following[deviceUser[device] ?? ""] == false ? .endedEarly : .final
    }
}

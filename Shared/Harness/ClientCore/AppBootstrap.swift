/// The cold-start phases, in order.
public enum BootstrapPhase: String, Sendable, Equatable, CaseIterable {
    case configCheck
    case authRestore
    case followSync
    case liveActivityRestore
    case ready
}

/// How a launch ended.
public enum BootstrapOutcome: Sendable, Equatable {
    /// Every phase passed; `session` is nil when nobody is signed in.
    case ready(session: AuthSession?)
    /// Halted at the config check: show the blocking screen.
    case blocked(BlockingReason)
    /// `phase` threw; nothing after it ran.
    case failed(phase: BootstrapPhase, reason: String)
}

/// What the launch sequence asks of the rest of the app (implemented by `LiveActivityService`).
public protocol LaunchTasks: Sendable {
    /// Registers the device and its tokens (best effort; never blocks the launch).
    func registerDevice() async
    /// Reconciles follows with `GET /user/follows`.
    func syncFollows() async throws
    /// Re-attaches to surviving Live Activities and starts observing new ones and tokens.
    func restoreLiveActivities() async throws
}

/// Cold-start phase gating (seeds: `AppBootstrap`): config check → auth restore → follow sync →
/// Live Activity restore → ready. Halts on maintenance or a too-old version, and on the first
/// failing phase, so the UI never sees a partly initialised app. When signed out, the device is
/// not registered and follows are not synced (local state stays).
public actor AppBootstrap {
    private let config: AppConfigService
    private let auth: any AuthSessionProvider
    private let tasks: any LaunchTasks
    private let events: ClientEventSink

    /// The phase running now (or the last one entered).
    public private(set) var phase: BootstrapPhase?
    /// The phases that completed, in order.
    public private(set) var completedPhases: [BootstrapPhase] = []

    public init(config: AppConfigService, auth: any AuthSessionProvider, tasks: any LaunchTasks, events: ClientEventSink = .none) {
        self.config = config
        self.auth = auth
        self.tasks = tasks
        self.events = events
    }

    /// Runs the launch sequence once.
    public func run() async -> BootstrapOutcome {
        completedPhases = []
        var session: AuthSession?
        do {
            enter(.configCheck)
            if let reason = try await config.check() { return .blocked(reason) }
            complete(.configCheck)

            enter(.authRestore)
            session = try await auth.restoreSession()
            if session != nil { await tasks.registerDevice() }
            complete(.authRestore)

            enter(.followSync)
            if session != nil { try await tasks.syncFollows() }
            complete(.followSync)

            enter(.liveActivityRestore)
            try await tasks.restoreLiveActivities()
            complete(.liveActivityRestore)
        } catch {
            return .failed(phase: phase ?? .configCheck, reason: String(describing: error))
        }
        enter(.ready)
        complete(.ready)
        return .ready(session: session)
    }

    private func enter(_ next: BootstrapPhase) {
        phase = next
        events.emit(.bootstrapPhase(next))
    }

    private func complete(_ done: BootstrapPhase) { completedPhases.append(done) }
}

import ClientCore
import Synchronization
import Testing
import Runtime

/// Records launch task calls; each can be made to throw.
final class FakeLaunchTasks: LaunchTasks {
    struct Failure: Error, Equatable { var task: String }
    private let state = LockedValue<(calls: [String], failing: Set<String>)>(([], []))

    init(failing: Set<String> = []) { state.withLock { $0.failing = failing } }

    var calls: [String] { state.withLock { $0.calls } }

    private func record(_ name: String) throws {
        let fails = state.withLock { state in
            state.calls.append(name)
            return state.failing.contains(name)
        }
        if fails { throw Failure(task: name) }
    }

    func registerDevice() async { try? record("registerDevice") }
    func syncFollows() async throws { try record("syncFollows") }
    func restoreLiveActivities() async throws { try record("restoreLiveActivities") }
}

struct FailingAuth: AuthSessionProvider {
    struct Locked: Error {}
    func restoreSession() async throws -> AuthSession? { throw Locked() }
}

@Suite struct AppBootstrapTests {
    let api = FakeBackendAPI()
    let events = EventRecorder()

    func bootstrap(
        version: String = "1.10.0", auth: any AuthSessionProvider = FixedAuthSessionProvider(AuthSession(userId: "u1")),
        tasks: FakeLaunchTasks
    ) -> AppBootstrap {
        AppBootstrap(config: AppConfigService(api: api, appVersion: version), auth: auth, tasks: tasks, events: events.sink)
    }

    @Test func runsThePhasesInOrder() async {
        let tasks = FakeLaunchTasks()
        let boot = bootstrap(tasks: tasks)
        #expect(await boot.run() == .ready(session: AuthSession(userId: "u1")))
        #expect(await boot.completedPhases == BootstrapPhase.allCases)
        #expect(await boot.phase == .ready)
        #expect(tasks.calls == ["registerDevice", "syncFollows", "restoreLiveActivities"])
        #expect(events.all == BootstrapPhase.allCases.map { .bootstrapPhase($0) })
    }

    @Test func maintenanceHaltsWithItsMessage() async {
        api.set { $0.config = AppConfig(minimumVersion: "1.0.0", maintenance: true, message: "Back at 6pm") }
        let tasks = FakeLaunchTasks()
        let boot = bootstrap(tasks: tasks)
        #expect(await boot.run() == .blocked(.maintenance(message: "Back at 6pm")))
        #expect(await boot.phase == .configCheck)
        #expect(await boot.completedPhases == [])
        #expect(tasks.calls == [])
    }

    @Test func anOlderVersionThanTheMinimumHalts() async {
        api.set { $0.config = AppConfig(minimumVersion: "1.10.0", maintenance: false) }
        let tasks = FakeLaunchTasks()
        #expect(await bootstrap(version: "1.9.9", tasks: tasks).run() == .blocked(.updateRequired(current: "1.9.9", minimum: "1.10.0")))
        #expect(tasks.calls == [])
        #expect(await bootstrap(version: "1.10.0", tasks: tasks).run() == .ready(session: AuthSession(userId: "u1")))
    }

    @Test func aNewerVersionThanTheMinimumRuns() async {
        api.set { $0.config = AppConfig(minimumVersion: "1.9.9", maintenance: false) }
        #expect(await bootstrap(version: "1.10.0", tasks: FakeLaunchTasks()).run() == .ready(session: AuthSession(userId: "u1")))
    }

    @Test func anUnreadableMinimumVersionFailsTheConfigCheck() async {
        api.set { $0.config = AppConfig(minimumVersion: "latest", maintenance: false) }
        let outcome = await bootstrap(tasks: FakeLaunchTasks()).run()
        #expect(outcome == .failed(phase: .configCheck, reason: String(describing: AppVersionError(text: "latest"))))
    }

    @Test func unreachableConfigFailsTheConfigCheck() async {
        api.fail(.config)
        let outcome = await bootstrap(tasks: FakeLaunchTasks()).run()
        #expect(outcome == .failed(phase: .configCheck, reason: String(describing: FakeAPIError(route: .config))))
    }

    @Test func authFailureIsReportedAsAuthRestore() async {
        let tasks = FakeLaunchTasks()
        let outcome = await bootstrap(auth: FailingAuth(), tasks: tasks).run()
        #expect(outcome == .failed(phase: .authRestore, reason: String(describing: FailingAuth.Locked())))
        #expect(tasks.calls == [])
    }

    @Test func followSyncFailureHaltsBeforeTheLiveActivityRestore() async {
        let tasks = FakeLaunchTasks(failing: ["syncFollows"])
        let boot = bootstrap(tasks: tasks)
        let outcome = await boot.run()
        #expect(outcome == .failed(phase: .followSync, reason: String(describing: FakeLaunchTasks.Failure(task: "syncFollows"))))
        #expect(tasks.calls == ["registerDevice", "syncFollows"])
        #expect(await boot.completedPhases == [.configCheck, .authRestore])
    }

    @Test func liveActivityRestoreFailureIsReported() async {
        let tasks = FakeLaunchTasks(failing: ["restoreLiveActivities"])
        let outcome = await bootstrap(tasks: tasks).run()
        #expect(outcome == .failed(phase: .liveActivityRestore, reason: String(describing: FakeLaunchTasks.Failure(task: "restoreLiveActivities"))))
    }

    @Test func signedOutSkipsRegistrationAndSyncButRestoresActivities() async {
        let tasks = FakeLaunchTasks()
        let outcome = await bootstrap(auth: FixedAuthSessionProvider(nil), tasks: tasks).run()
        #expect(outcome == .ready(session: nil))
        #expect(tasks.calls == ["restoreLiveActivities"])
    }
}

/// Checks the app configuration at launch (seeds: `AppConfigService`): maintenance mode and the
/// minimum app version from `GET /app/config`.
public struct AppConfigService: Sendable {
    private let api: any BackendAPI
    private let appVersion: String

    public init(api: any BackendAPI, appVersion: String) {
        self.api = api
        self.appVersion = appVersion
    }

    /// nil when the app may run, otherwise why it is blocked. Throws when the config cannot be
    /// fetched or a version does not parse (`AppVersionError`).
    public func check() async throws -> BlockingReason? {
        let config = try await api.fetchAppConfig()
        if config.maintenance { return .maintenance(message: config.message) }
        let minimum = try AppVersion(config.minimumVersion)
        let current = try AppVersion(appVersion)
        if current < minimum { return .updateRequired(current: appVersion, minimum: config.minimumVersion) }
        return nil
    }
}

/// Why the app shows a blocking screen instead of starting.
public enum BlockingReason: Sendable, Equatable {
    /// The backend is in maintenance; show its message.
    case maintenance(message: String?)
    /// The app is older than the backend's minimum version: force update.
    case updateRequired(current: String, minimum: String)
}

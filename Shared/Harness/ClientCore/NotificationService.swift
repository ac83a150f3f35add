import Contracts

/// Who this device is, as registered with `POST /devices`.
public struct DeviceIdentity: Sendable, Equatable {
    /// `identifierForVendor` on iOS.
    public var deviceId: String
    public var apnsEnvironment: APNsEnvironment
    /// The running app version, e.g. "1.10.0".
    public var appVersion: String
    /// The iOS version ("18.2"); nil for a build that does not report it.
    public var osVersion: String?
    /// This build starts activities on broadcast channels when the backend offers one (iOS 18+).
    public var supportsBroadcastChannels: Bool

    public init(deviceId: String, apnsEnvironment: APNsEnvironment, appVersion: String, osVersion: String? = nil,
                supportsBroadcastChannels: Bool = false) {
        self.deviceId = deviceId
        self.apnsEnvironment = apnsEnvironment
        self.appVersion = appVersion
        self.osVersion = osVersion
        self.supportsBroadcastChannels = supportsBroadcastChannels
    }
}

/// Device registration with both tokens (the seeds' `NotificationService`): every change posts the
/// full registration, so the device token and the push-to-start token never overwrite each other.
public actor NotificationService {
    private let identity: DeviceIdentity
    private let api: any BackendAPI
    private let retry: RetryPolicy
    private let clock: any ClientClock
    private var pushToken: String?
    private var pushToStartToken: String?

    public init(identity: DeviceIdentity, api: any BackendAPI, retry: RetryPolicy, clock: any ClientClock) {
        self.identity = identity
        self.api = api
        self.retry = retry
        self.clock = clock
    }

    /// The registration as it would be posted now.
    public var registration: DeviceRegistration {
        var registration = DeviceRegistration(
            deviceId: identity.deviceId, pushToken: pushToken, pushToStartToken: pushToStartToken,
            apnsEnvironment: identity.apnsEnvironment, appVersion: identity.appVersion)
        registration.osVersion = identity.osVersion
        registration.supportsBroadcastChannels = identity.supportsBroadcastChannels ? true : nil
        return registration
    }

    /// Posts the current registration (on launch), with retries.
    public func registerDevice() async -> RetryOutcome {
        await post()
    }

    /// The APNs device token arrived or rotated; posts it.
    public func updatePushToken(_ token: String) async -> RetryOutcome {
        pushToken = token
        return await post()
    }

    /// A push-to-start token arrived or rotated; posts it (deduplication is the token manager's job).
    public func updatePushToStartToken(_ token: String) async -> RetryOutcome {
        pushToStartToken = token
        return await post()
    }

    private func post() async -> RetryOutcome {
        let body = registration
        let api = self.api
        return await retry.run(clock: clock) { try await api.registerDevice(body) }
    }
}

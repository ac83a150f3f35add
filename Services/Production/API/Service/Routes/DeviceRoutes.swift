import Contracts
import HTTPServer

/// POST /devices and DELETE /devices/:deviceId (the caller's own devices only).
enum DeviceRoutes {
    static func routes(_ service: APIService) -> [APIRoute] {
        [
            APIRoute(method: .post, pattern: "/devices") { request in
                let user = try await service.authenticator.user(request)
                let body = try request.decode(APIBodies.DeviceRequest.self)
                let deviceId = try InputRules.id(body.deviceId, field: "deviceId")
                let pushToken = try body.pushToken.map { token throws(HTTPError) in try InputRules.apnsToken(token, field: "pushToken") }
                let startToken = try body.pushToStartToken.map { token throws(HTTPError) in
                    try InputRules.apnsToken(token, field: "pushToStartToken")
                }
                let version = try InputRules.shortText(body.appVersion, field: "appVersion")
                let osVersion = try body.osVersion.map { value throws(HTTPError) in try InputRules.osVersion(value, field: "osVersion") }
                let device = try await service.devices.upsert(
                    userId: user.userId, deviceId: deviceId, pushToken: pushToken, pushToStartToken: startToken,
                    environment: body.apnsEnvironment.rawValue, appVersion: version, osVersion: osVersion,
                    supportsBroadcastChannels: body.supportsBroadcastChannels ?? false,
                    now: service.clock.now())
                return .json(APIBodies.DeviceResponse(
                    deviceId: deviceId, hasPushToken: device.hasPushToken, hasPushToStartToken: device.hasPushToStartToken,
                    apnsEnvironment: APNsEnvironment(rawValue: device.apnsEnvironment) ?? body.apnsEnvironment,
                    appVersion: device.appVersion, updatedAt: ISOTime.string(device.updatedAt), osVersion: device.osVersion,
                    channelCapable: device.channelCapable))
            },
            APIRoute(method: .delete, pattern: "/devices/:deviceId") { request in
                let user = try await service.authenticator.user(request)
                let deviceId = try InputRules.pathId(request, "deviceId")
                guard try await service.devices.delete(userId: user.userId, deviceId: deviceId) else {
                    throw HTTPError.notFound("no device \(deviceId)")
                }
                return .json(APIBodies.DeleteDeviceResponse(deviceId: deviceId, deleted: true))
            },
        ]
    }
}

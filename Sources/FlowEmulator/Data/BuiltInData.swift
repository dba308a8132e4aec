internal import FlowDescriptor

extension EmulatorData {
    /// The data the emulator uses when no file is given: application `com.example.travel` (OAuth 2.0 against the
    /// emulator itself, destination `travel`), the user `ada@example.com` and the onboarding code `TRAVEL-0001`.
    public static let builtIn = EmulatorData(
        applications: [
            EmulatorApplication(
                id: "com.example.travel",
                version: "1.0",
                auth: [
                    AuthEntry(type: "oauth2", config: [
                        "oauth2.authorizationEndpoint": "${backend}/oauth2/api/v1/authorize",
                        "oauth2.tokenEndpoint": "${backend}/oauth2/api/v1/token",
                        "oauth2.clients": [
                            [
                                "clientID": "travel-client",
                                "grantType": "authorization_code",
                                "redirectURL": "${backend}",
                            ],
                        ],
                    ]),
                ],
                destinations: ["travel"]
            ),
        ],
        users: [
            EmulatorUser(
                email: "ada@example.com",
                id: "ada",
                userName: "ada@example.com",
                givenName: "Ada",
                familyName: "Lovelace",
                roles: ["TravelUser"],
                password: "analytical-engine"
            ),
        ],
        onboardingCodes: [
            OnboardingCode(code: "TRAVEL-0001", application: "com.example.travel", user: "ada@example.com"),
        ]
    )
}

extension SettingsGroup {
    /// The settings an application hands out when its data names none: the password policy, log settings and
    /// feature-vector policy a freshly created application has.
    public static let defaults: [SettingsGroup] = [
        SettingsGroup(name: "passwordPolicy", values: [
            ("passwordPolicyEnabled", "true"),
            ("passwordPolicyMinLength", "8"),
            ("passwordPolicyDigitRequired", "false"),
            ("passwordPolicyLowerRequired", "false"),
            ("passwordPolicyUpperRequired", "false"),
            ("passwordPolicySpecialRequired", "false"),
            ("passwordPolicyMinUniqueChars", "0"),
            ("passwordPolicyRetryLimit", "10"),
            ("passwordPolicyLockTimeout", "300"),
            ("passwordPolicyExpiresInNDays", "0"),
            ("passwordPolicyDefaultPasswordAllowed", "false"),
            ("passwordPolicyFingerprintEnabled", "true"),
            ("passwordPolicyIsDigitsOnly", "false"),
        ]),
        SettingsGroup(name: "logSettings", values: [
            ("logEnabled", "true"),
            ("logLevel", "WARN"),
            ("logEntryExpiry", "7"),
        ]),
        SettingsGroup(name: "featureVectorPolicies", values: [
            ("featureVectorPolicyAllEnabled", "true"),
        ]),
    ]
}

internal import FlowDescriptor

extension EmulatorData {
    /// The data the emulator uses when no file is given: one application per authentication method, two users and
    /// an onboarding code.
    ///
    /// | application | protection | destination |
    /// |---|---|---|
    /// | `com.example.travel` | OAuth 2.0 authorization code with PKCE, client `9b2d4e61-…`¹ | `travel` |
    /// | `com.example.fieldscan` | OAuth 2.0 client credentials, client `3f0c9d52-…`² | `fieldscan` |
    /// | `com.example.warehouse` | Basic | `warehouse` |
    /// | `com.example.hr` | SAML | `hr` |
    /// | `com.example.payroll` | SAML and OTP | `payroll` |
    /// | `com.example.timetable` | none (open) | `timetable` |
    ///
    /// `ada@example.com` (password `analytical-engine`, OTP secret `JBSWY3DPEHPK3PXP`) may use every application;
    /// `grace@example.com` (password `compiler-1952`) every one but payroll. Onboarding code `TRAVEL-0001` stands
    /// for Ada in travel.
    ///
    /// ¹ `9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30`; ² `3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07` (as in `flows/config`).
    public static let builtIn = EmulatorData(
        applications: [
            EmulatorApplication(
                id: "com.example.travel",
                auth: [
                    AuthEntry(
                        type: "oauth2",
                        config: [
                            "oauth2.authorizationEndpoint": "${backend}/oauth2/api/v1/authorize",
                            "oauth2.tokenEndpoint": "${backend}/oauth2/api/v1/token",
                            "oauth2.clients": [
                                [
                                    "clientID": "9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30",
                                    "grantType": "authorization_code",
                                    "redirectURL": "${backend}",
                                ]
                            ],
                        ])
                ],
                destinations: ["travel"]
            ),
            EmulatorApplication(
                id: "com.example.warehouse",
                auth: [AuthEntry(type: "basic.default")],
                destinations: ["warehouse"]
            ),
            EmulatorApplication(
                id: "com.example.fieldscan",
                auth: [
                    AuthEntry(
                        type: "oauth2",
                        config: [
                            "oauth2.tokenEndpoint": "${backend}/oauth2/api/v1/token",
                            "oauth2.clients": [
                                [
                                    "clientID": "3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07",
                                    "grantType": "client_credentials",
                                    "clientSecret": "fieldscan-secret-0451",
                                ]
                            ],
                        ])
                ],
                destinations: ["fieldscan"]
            ),
            EmulatorApplication(
                id: "com.example.hr",
                auth: [AuthEntry(type: "saml2.web.post", config: samlConfig)],
                destinations: ["hr"]
            ),
            EmulatorApplication(
                id: "com.example.payroll",
                auth: [AuthEntry(type: "saml2.web.post", config: samlConfig, requireOtp: true)],
                destinations: ["payroll"]
            ),
            EmulatorApplication(
                id: "com.example.timetable",
                auth: [AuthEntry(type: "none")],
                destinations: ["timetable"]
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
                password: "analytical-engine",
                otpSecret: "JBSWY3DPEHPK3PXP"
            ),
            EmulatorUser(
                email: "grace@example.com",
                id: "grace",
                userName: "grace@example.com",
                givenName: "Grace",
                familyName: "Hopper",
                roles: ["TravelUser", "Auditor"],
                password: "compiler-1952",
                applications: [
                    "com.example.travel", "com.example.warehouse", "com.example.fieldscan", "com.example.hr",
                    "com.example.timetable",
                ]
            ),
        ],
        onboardingCodes: [
            OnboardingCode(code: "TRAVEL-0001", application: "com.example.travel", user: "ada@example.com")
        ]
    )

    /// The SAML parameters with the values a client assumes when they are missing.
    private static let samlConfig: JSONValue = [
        "saml2.web.post.authchallengeheader.name": "com.sap.cloud.security.login",
        "saml2.web.post.finish.endpoint.uri": "/SAMLAuthLauncher",
        "saml2.web.post.finish.endpoint.redirectparam": "finishEndpointParam",
    ]
}

extension SettingsGroup {
    /// The settings an application hands out when its data names none: the password policy, log settings and
    /// feature-vector policy a freshly created application has.
    public static let defaults: [SettingsGroup] = [
        SettingsGroup(
            name: "passwordPolicy",
            values: [
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
        SettingsGroup(
            name: "logSettings",
            values: [
                ("logEnabled", "true"),
                ("logLevel", "WARN"),
                ("logEntryExpiry", "7"),
            ]),
        SettingsGroup(
            name: "featureVectorPolicies",
            values: [
                ("featureVectorPolicyAllEnabled", "true")
            ]),
    ]
}

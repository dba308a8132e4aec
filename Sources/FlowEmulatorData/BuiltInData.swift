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
    /// | `com.example.fieldservice` | a client certificate³ from the certificate service (Basic) | `fieldservice` |
    /// | `com.example.inspection` | a client certificate³: from the SLS, or the demo PKCS#12 file⁴ | `inspection` |
    /// | `com.example.fieldapp` | OAuth 2.0 code with PKCE, client `5e8a1f30-…`⁵, CSRF | `fieldapp`, `sap` |
    ///
    /// `ada@example.com` (password `analytical-engine`, OTP secret `JBSWY3DPEHPK3PXP`) may use every application;
    /// `grace@example.com` (password `compiler-1952`) every one but payroll. Onboarding code `TRAVEL-0001` stands
    /// for Ada in travel.
    ///
    /// ³ `client-certificate: required`: over HTTPS, every backend request needs a certificate the emulator accepts.
    /// ⁴ `flows/certificates/demo-user.p12` (Ada's, password `flowrun-demo`), whose CA (``demoUserCA``) is trusted
    /// for user certificates.
    ///
    /// ¹ `9b2d4e61-0c3a-4f7e-b5d8-6a1c2e9f4b30`; ² `3f0c9d52-8a1e-4b7c-9e55-2d6f1a4b8c07` (as in `flows/config`).
    /// ⁵ `5e8a1f30-7b2c-4d9e-a6f1-0c3b8d2e4a71`: the SDK's generated app of `flows/generated-app.yaml`, whose
    /// modifying requests want a CSRF token.
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
            // The mobile-services identity source: a Basic login for the certificate service, then the certificate.
            EmulatorApplication(
                id: "com.example.fieldservice",
                auth: [AuthEntry(type: "basic.default")],
                destinations: ["fieldservice"],
                clientCertificate: .required,
                certificateService: true
            ),
            // The sls and pkcs12 identity sources: the certificate is the only login.
            EmulatorApplication(
                id: "com.example.inspection",
                auth: [],
                destinations: ["inspection"],
                clientCertificate: .required
            ),
            // The SDK's generated app (flows/generated-app.yaml): OAuth 2.0, CSRF on modifying requests.
            EmulatorApplication(
                id: "com.example.fieldapp",
                auth: [
                    AuthEntry(
                        type: "oauth2",
                        config: [
                            "oauth2.authorizationEndpoint": "${backend}/oauth2/api/v1/authorize",
                            "oauth2.tokenEndpoint": "${backend}/oauth2/api/v1/token",
                            "oauth2.clients": [
                                [
                                    "clientID": "5e8a1f30-7b2c-4d9e-a6f1-0c3b8d2e4a71",
                                    "grantType": "authorization_code",
                                    "redirectURL": "${backend}",
                                ]
                            ],
                        ])
                ],
                // A tenant that locks a device after 30 days without contact and wipes it after 90, and takes crash
                // reports.
                settings: SettingsGroup.defaults.map { group in
                    switch group.name {
                    case "blockWipingPolicy":
                        return SettingsGroup(
                            name: group.name,
                            values: [
                                ("blockWipeEnabled", "true"), ("blockDisconnectedPeriod", "30"),
                                ("wipeDisconnectedPeriod", "90"),
                            ])
                    case "usagePolicy":
                        return SettingsGroup(
                            name: group.name,
                            values: group.values.map { $0.0 == "crashLogUploadEnabled" ? ($0.0, "true") : $0 })
                    default:
                        return group
                    }
                },
                policies: PolicyGroup.examples,
                destinations: ["fieldapp", "sap"],
                // The app's texts and colours, handed out as its default client resource bundle.
                resourceBundles: [
                    ResourceBundle(
                        name: "fieldapp-ui", version: "2", fileExtension: "json", isDefault: true,
                        content: Array(##"{"title": "Field app", "accent": "#0a6ed1"}"##.utf8))
                ],
                csrf: true
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
                    "com.example.timetable", "com.example.fieldservice", "com.example.inspection",
                    "com.example.fieldapp",
                ]
            ),
        ],
        onboardingCodes: [
            OnboardingCode(code: "TRAVEL-0001", application: "com.example.travel", user: "ada@example.com")
        ],
        tls: EmulatorTLSData(authority: builtInAuthority, clientAuthoritiesPEM: [demoUserCA])
    )

    /// The CA the built-in data signs with: one fixed CA, so that a certificate issued by one `run --emulator` is
    /// accepted by the next (a restore presents the kept one). Its key is public, as the built-in signing key is:
    /// trust it only for a run against the emulator, never in a system trust store.
    public static let builtInAuthority = AuthorityPEM(
        certificatePEM: """
            -----BEGIN CERTIFICATE-----
            MIICCDCCAa6gAwIBAgIUDk7UrUPTmNSp1ieq6xrlBccTwFkwCgYIKoZIzj0EAwIw
            UDEZMBcGA1UECgwQZmxvd3J1biBlbXVsYXRvcjEzMDEGA1UEAwwqZmxvd3J1biBl
            bXVsYXRvciBDQSAoYnVpbHQtaW4sIHB1YmxpYyBrZXkpMB4XDTI2MTEyNTExMTI0
            NloXDTQ2MTEyNTExMTI0NlowUDEZMBcGA1UECgwQZmxvd3J1biBlbXVsYXRvcjEz
            MDEGA1UEAwwqZmxvd3J1biBlbXVsYXRvciBDQSAoYnVpbHQtaW4sIHB1YmxpYyBr
            ZXkpMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEX3lCTm4lCCDfH4ASi9MRXq2p
            WsLnUZSxxodZpZiBP1xegKu7DCZoAgb9DAY/qmkGBlI54R4UwlJoyYdqsTcUWaNm
            MGQwHQYDVR0OBBYEFAd52cV0dBVz+t15UcGID0FNMtokMB8GA1UdIwQYMBaAFAd5
            2cV0dBVz+t15UcGID0FNMtokMBIGA1UdEwEB/wQIMAYBAf8CAQAwDgYDVR0PAQH/
            BAQDAgEGMAoGCCqGSM49BAMCA0gAMEUCIQCR3lnJzDLcGuG6rO0cJLkdsGFBJbtY
            F41SdH9pzEJWowIgK0LbTJfeFDF1IUWfBU6YRf1OFkIUncPL2T0Q2GAkFVY=
            -----END CERTIFICATE-----
            """,
        keyPEM: """
            -----BEGIN PRIVATE KEY-----
            MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgf3IXR6OqdgPwgNjP
            DYVSBX/0VTCANbgKSwtuBZctslKhRANCAARfeUJObiUIIN8fgBKL0xFeralawudR
            lLHGh1mlmIE/XF6Aq7sMJmgCBv0MBj+qaQYGUjnhHhTCUmjJh2qxNxRZ
            -----END PRIVATE KEY-----
            """)

    /// The CA of the public demo identity `flows/certificates/demo-user.p12` (`CN=ada@example.com`, password
    /// `flowrun-demo`), the same as `flows/certificates/demo-ca.pem`. Its key was deleted when the identity was made:
    /// nothing else will ever be signed by it. The identity protects nothing; it is for trying the pkcs12 source.
    public static let demoUserCA = """
        -----BEGIN CERTIFICATE-----
        MIIB1TCCAXqgAwIBAgIUKaedGED41gRlr2Nn2WaovB0N2wMwCgYIKoZIzj0EAwIw
        NjEVMBMGA1UECgwMZmxvd3J1biBkZW1vMR0wGwYDVQQDDBRmbG93cnVuIGRlbW8g
        dXNlciBDQTAeFw0yNjExMjUxMTA5MDJaFw00NjExMjUxMTA5MDJaMDYxFTATBgNV
        BAoMDGZsb3dydW4gZGVtbzEdMBsGA1UEAwwUZmxvd3J1biBkZW1vIHVzZXIgQ0Ew
        WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAASD1Dsr350R8BOsgTZgah/8TmiCn3bw
        GOmiLzQmcPDRsDyVqocHtOc76AbsqTqutApT/9E+QR5V9miR5FCcwo8To2YwZDAd
        BgNVHQ4EFgQUl4+AFyjtC1Vu+pVLciV+lDrCI6MwHwYDVR0jBBgwFoAUl4+AFyjt
        C1Vu+pVLciV+lDrCI6MwEgYDVR0TAQH/BAgwBgEB/wIBADAOBgNVHQ8BAf8EBAMC
        AQYwCgYIKoZIzj0EAwIDSQAwRgIhAMYoqldvMMjpS9r8WDiUkFkkgZG8GLoEelpp
        kNcV3SllAiEAmzxfwTvf8HdxOD3fTak90S18BNRpYZm1B/wG1Wjxq6g=
        -----END CERTIFICATE-----
        """

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
                ("logMaxFileNum", "0"),
                ("logMaxFileSize", "0"),
            ]),
        SettingsGroup(
            name: "featureVectorPolicies",
            values: [
                ("featureVectorPolicyAllEnabled", "true")
            ]),
        SettingsGroup(
            name: "usagePolicy",
            values: [
                ("dataCollectionEnabled", "true"),
                ("uploadDataAfterDays", "0"),
                ("crashLogUploadEnabled", "false"),
            ]),
        SettingsGroup(
            name: "blockWipingPolicy",
            values: [
                ("blockWipeEnabled", "false"),
                ("blockDisconnectedPeriod", "0"),
                ("wipeDisconnectedPeriod", "0"),
            ]),
    ]

    /// The setting names each group the backend knows may carry, by group name: those of ``defaults``. The data
    /// file's `settings`, `user-settings` and `device-settings` are checked against them.
    public static let settingNames: [String: [String]] = Dictionary(
        uniqueKeysWithValues: defaults.map { ($0.name, $0.values.map(\.0)) })

    /// The backend's default value of the setting `name`, in any group.
    package static func defaultValue(of name: String) -> String? {
        for group in defaults {
            if let value = group.values.first(where: { $0.0 == name })?.1 { return value }
        }
        return nil
    }

    /// The log levels the backend's `logLevel` takes.
    package static let logLevels = ["NONE", "FATAL", "ERROR", "WARN", "INFO", "DEBUG", "PATH"]
}

// The answers of the two lookups as JSON Schema (spec §2.1 visitor details, §2.3 enriched record),
// as the interface describes them: the services serve these records as stored text (no zod schema
// parses them per answer), so their shape is written here once and checked by every integration
// test that validates an answer against the generated document.
export const RECORD_SCHEMAS: Record<string, Record<string, unknown>> = {
  "VisitorDetails": {
    "description": "Spec §2.1: all fields are strings and none is required, so a field the person lacks is left out. The page-view fields the spec does not show (docs/decisions.md) are present when the visitor has page-view data: page_views and last_seen_at for an imported visitor; page_views, sessions, first_seen, last_seen, last_page, engaged_seconds and identified_by for one seen by the site tag (with the person's fields once it is identified).",
    "type": "object",
    "additionalProperties": false,
    "properties": {
      "firstName": {
        "type": "string"
      },
      "lastName": {
        "type": "string"
      },
      "name": {
        "type": "string"
      },
      "email": {
        "type": "string",
        "format": "email"
      },
      "company": {
        "type": "string"
      },
      "company_role": {
        "type": "string"
      },
      "pronet_url": {
        "type": "string",
        "format": "uri"
      },
      "page_views": {
        "type": "integer",
        "minimum": 0
      },
      "last_seen_at": {
        "type": "string",
        "format": "date-time"
      },
      "sessions": {
        "description": "visits of a visitor seen by the site tag (a new one after 30 idle minutes or a new UTM campaign)",
        "type": "integer",
        "minimum": 0
      },
      "first_seen": {
        "description": "the tag's first page view of the visitor",
        "type": "string",
        "format": "date-time"
      },
      "last_seen": {
        "description": "the tag's last page view or engagement of the visitor",
        "type": "string",
        "format": "date-time"
      },
      "last_page": {
        "description": "the path of the visitor's last page view (no query)",
        "type": "string"
      },
      "engaged_seconds": {
        "description": "time on page reported by the tag, in total",
        "type": "integer",
        "minimum": 0
      },
      "identified_by": {
        "description": "how, when and how surely the visitor was tied to a person or a company: method identify (confidence 1), email_link (1), form (0.9), ip_company (0.5: the company behind the address; the person's fields absent)",
        "type": "object",
        "additionalProperties": false,
        "required": ["method", "at"],
        "properties": {
          "method": { "type": "string", "enum": ["identify", "email_link", "form", "ip_company", "import"] },
          "at": { "type": "string", "format": "date-time" },
          "confidence": { "type": "number", "minimum": 0, "maximum": 1 }
        }
      }
    }
  },
  "Str": {
    "type": [
      "string",
      "null"
    ]
  },
  "Int": {
    "type": [
      "integer",
      "null"
    ]
  },
  "Bool": {
    "type": [
      "boolean",
      "null"
    ]
  },
  "Unshown": {
    "description": "shown only as null in the spec; its type is not shown",
    "type": [
      "string",
      "number",
      "boolean",
      "null"
    ]
  },
  "Strings": {
    "type": "array",
    "items": {
      "type": "string"
    }
  },
  "AnyList": {
    "type": "array"
  },
  "Url": {
    "type": [
      "string",
      "null"
    ],
    "format": "uri"
  },
  "Geo": {
    "description": "<latitude>,<longitude>",
    "type": [
      "string",
      "null"
    ],
    "pattern": "^-?[0-9]{1,2}(\\.[0-9]+)?,-?[0-9]{1,3}(\\.[0-9]+)?$"
  },
  "YearMonth": {
    "type": [
      "string",
      "null"
    ],
    "pattern": "^[0-9]{4}-(0[1-9]|1[0-2])$"
  },
  "Timestamp": {
    "type": [
      "string",
      "null"
    ],
    "format": "date-time"
  },
  "ExperienceLocation": {
    "type": "object",
    "additionalProperties": false,
    "required": [
      "name",
      "locality",
      "metro",
      "region",
      "country",
      "continent",
      "street_address",
      "address_line_2",
      "postal_code",
      "geo"
    ],
    "properties": {
      "name": {
        "$ref": "#/components/schemas/Str"
      },
      "locality": {
        "$ref": "#/components/schemas/Str"
      },
      "metro": {
        "$ref": "#/components/schemas/Unshown"
      },
      "region": {
        "$ref": "#/components/schemas/Str"
      },
      "country": {
        "$ref": "#/components/schemas/Str"
      },
      "continent": {
        "$ref": "#/components/schemas/Str"
      },
      "street_address": {
        "$ref": "#/components/schemas/Unshown"
      },
      "address_line_2": {
        "$ref": "#/components/schemas/Unshown"
      },
      "postal_code": {
        "$ref": "#/components/schemas/Unshown"
      },
      "geo": {
        "$ref": "#/components/schemas/Geo"
      }
    }
  },
  "CompanyLocation": {
    "type": "object",
    "additionalProperties": false,
    "required": [
      "name",
      "city",
      "state",
      "locality",
      "metro",
      "region",
      "country",
      "continent",
      "street_address",
      "address_line_2",
      "postal_code",
      "geo"
    ],
    "properties": {
      "name": {
        "$ref": "#/components/schemas/Str"
      },
      "locality": {
        "$ref": "#/components/schemas/Str"
      },
      "metro": {
        "$ref": "#/components/schemas/Unshown"
      },
      "region": {
        "$ref": "#/components/schemas/Str"
      },
      "country": {
        "$ref": "#/components/schemas/Str"
      },
      "continent": {
        "$ref": "#/components/schemas/Str"
      },
      "street_address": {
        "$ref": "#/components/schemas/Unshown"
      },
      "address_line_2": {
        "$ref": "#/components/schemas/Unshown"
      },
      "postal_code": {
        "$ref": "#/components/schemas/Unshown"
      },
      "geo": {
        "$ref": "#/components/schemas/Geo"
      },
      "city": {
        "$ref": "#/components/schemas/Str"
      },
      "state": {
        "$ref": "#/components/schemas/Str"
      }
    }
  },
  "Location": {
    "type": "object",
    "additionalProperties": false,
    "required": [
      "name",
      "city",
      "state",
      "locality",
      "metro",
      "region",
      "country",
      "continent",
      "street_address",
      "address_line_2",
      "postal_code",
      "geo",
      "last_updated"
    ],
    "properties": {
      "name": {
        "$ref": "#/components/schemas/Str"
      },
      "locality": {
        "$ref": "#/components/schemas/Str"
      },
      "metro": {
        "$ref": "#/components/schemas/Unshown"
      },
      "region": {
        "$ref": "#/components/schemas/Str"
      },
      "country": {
        "$ref": "#/components/schemas/Str"
      },
      "continent": {
        "$ref": "#/components/schemas/Str"
      },
      "street_address": {
        "$ref": "#/components/schemas/Unshown"
      },
      "address_line_2": {
        "$ref": "#/components/schemas/Unshown"
      },
      "postal_code": {
        "$ref": "#/components/schemas/Unshown"
      },
      "geo": {
        "$ref": "#/components/schemas/Geo"
      },
      "city": {
        "$ref": "#/components/schemas/Str"
      },
      "state": {
        "$ref": "#/components/schemas/Str"
      },
      "last_updated": {
        "$ref": "#/components/schemas/Unshown"
      }
    }
  },
  "SocialProfile": {
    "type": "object",
    "additionalProperties": false,
    "required": [
      "url",
      "username"
    ],
    "properties": {
      "url": {
        "$ref": "#/components/schemas/Str"
      },
      "username": {
        "$ref": "#/components/schemas/Str"
      }
    }
  },
  "EnrichedRecord": {
    "type": "object",
    "additionalProperties": false,
    "required": [
      "profile",
      "traits",
      "social",
      "company",
      "organization",
      "job",
      "location",
      "location_names",
      "street_addresses",
      "regions",
      "experience",
      "interests",
      "skills",
      "device"
    ],
    "properties": {
      "profile": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "alias",
          "email"
        ],
        "properties": {
          "id": {
            "type": [
              "string",
              "null"
            ],
            "pattern": "^[a-fA-F0-9]{24}$"
          },
          "alias": {
            "$ref": "#/components/schemas/Str"
          },
          "email": {
            "type": [
              "string",
              "null"
            ],
            "format": "email"
          }
        }
      },
      "traits": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "email",
          "full_name",
          "first_name",
          "last_name",
          "middle_initial",
          "middle_name",
          "work_email",
          "recommended_personal_email",
          "emails",
          "gender",
          "birth_year",
          "birth_date",
          "mobile_phone",
          "phone_numbers",
          "industry",
          "home_owner",
          "married",
          "children",
          "email_status",
          "extrapolated_email_confidence",
          "photo_url"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/Str"
          },
          "email": {
            "$ref": "#/components/schemas/Str"
          },
          "full_name": {
            "$ref": "#/components/schemas/Str"
          },
          "first_name": {
            "$ref": "#/components/schemas/Str"
          },
          "last_name": {
            "$ref": "#/components/schemas/Str"
          },
          "middle_initial": {
            "$ref": "#/components/schemas/Unshown"
          },
          "middle_name": {
            "$ref": "#/components/schemas/Unshown"
          },
          "work_email": {
            "$ref": "#/components/schemas/Str"
          },
          "recommended_personal_email": {
            "$ref": "#/components/schemas/Str"
          },
          "emails": {
            "type": "array",
            "items": {
              "type": "object",
              "additionalProperties": false,
              "required": [
                "address",
                "type"
              ],
              "properties": {
                "address": {
                  "$ref": "#/components/schemas/Str"
                },
                "type": {
                  "$ref": "#/components/schemas/Str"
                }
              }
            }
          },
          "gender": {
            "$ref": "#/components/schemas/Str"
          },
          "birth_year": {
            "$ref": "#/components/schemas/Int"
          },
          "birth_date": {
            "type": [
              "string",
              "null"
            ],
            "format": "date"
          },
          "mobile_phone": {
            "$ref": "#/components/schemas/Str"
          },
          "phone_numbers": {
            "$ref": "#/components/schemas/Strings"
          },
          "industry": {
            "$ref": "#/components/schemas/Str"
          },
          "home_owner": {
            "$ref": "#/components/schemas/Unshown"
          },
          "married": {
            "$ref": "#/components/schemas/Unshown"
          },
          "children": {
            "$ref": "#/components/schemas/Unshown"
          },
          "email_status": {
            "$ref": "#/components/schemas/Unshown"
          },
          "extrapolated_email_confidence": {
            "$ref": "#/components/schemas/Unshown"
          },
          "photo_url": {
            "$ref": "#/components/schemas/Url"
          }
        }
      },
      "social": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "pronet",
          "social1",
          "social2",
          "codehost"
        ],
        "properties": {
          "pronet": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "id",
              "url",
              "username"
            ],
            "properties": {
              "id": {
                "$ref": "#/components/schemas/Str"
              },
              "url": {
                "$ref": "#/components/schemas/Str"
              },
              "username": {
                "$ref": "#/components/schemas/Str"
              }
            }
          },
          "social1": {
            "$ref": "#/components/schemas/SocialProfile"
          },
          "social2": {
            "$ref": "#/components/schemas/SocialProfile"
          },
          "codehost": {
            "$ref": "#/components/schemas/SocialProfile"
          }
        }
      },
      "company": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "name",
          "size",
          "founded",
          "industry",
          "description",
          "revenue",
          "phone_numbers",
          "website",
          "pronet",
          "location"
        ],
        "properties": {
          "name": {
            "$ref": "#/components/schemas/Str"
          },
          "size": {
            "$ref": "#/components/schemas/Str"
          },
          "founded": {
            "$ref": "#/components/schemas/Int"
          },
          "industry": {
            "$ref": "#/components/schemas/Str"
          },
          "description": {
            "$ref": "#/components/schemas/Str"
          },
          "revenue": {
            "$ref": "#/components/schemas/Str"
          },
          "phone_numbers": {
            "$ref": "#/components/schemas/Strings"
          },
          "website": {
            "$ref": "#/components/schemas/Str"
          },
          "pronet": {
            "type": "object",
            "additionalProperties": false,
            "required": [
              "url",
              "id"
            ],
            "properties": {
              "url": {
                "$ref": "#/components/schemas/Str"
              },
              "id": {
                "$ref": "#/components/schemas/Str"
              }
            }
          },
          "location": {
            "$ref": "#/components/schemas/CompanyLocation"
          }
        }
      },
      "organization": {
        "$ref": "#/components/schemas/Organization"
      },
      "job": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "title",
          "role",
          "headline",
          "seniority",
          "sub_role",
          "title_levels",
          "income_range",
          "net_worth",
          "functions",
          "departments",
          "subdepartments"
        ],
        "properties": {
          "title": {
            "$ref": "#/components/schemas/Str"
          },
          "role": {
            "$ref": "#/components/schemas/Str"
          },
          "headline": {
            "$ref": "#/components/schemas/Str"
          },
          "seniority": {
            "$ref": "#/components/schemas/Str"
          },
          "sub_role": {
            "$ref": "#/components/schemas/Unshown"
          },
          "title_levels": {
            "$ref": "#/components/schemas/AnyList"
          },
          "income_range": {
            "$ref": "#/components/schemas/Str"
          },
          "net_worth": {
            "$ref": "#/components/schemas/Str"
          },
          "functions": {
            "$ref": "#/components/schemas/Strings"
          },
          "departments": {
            "$ref": "#/components/schemas/Strings"
          },
          "subdepartments": {
            "$ref": "#/components/schemas/Strings"
          }
        }
      },
      "location": {
        "$ref": "#/components/schemas/Location"
      },
      "location_names": {
        "$ref": "#/components/schemas/AnyList"
      },
      "street_addresses": {
        "$ref": "#/components/schemas/AnyList"
      },
      "regions": {
        "$ref": "#/components/schemas/AnyList"
      },
      "experience": {
        "type": "array",
        "items": {
          "$ref": "#/components/schemas/Experience"
        }
      },
      "interests": {
        "$ref": "#/components/schemas/AnyList"
      },
      "skills": {
        "$ref": "#/components/schemas/AnyList"
      },
      "device": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "type"
        ],
        "properties": {
          "type": {
            "$ref": "#/components/schemas/Str"
          }
        }
      }
    }
  },
  "Experience": {
    "type": "object",
    "additionalProperties": false,
    "required": [
      "company",
      "location_names",
      "start_date",
      "end_date",
      "title",
      "is_primary"
    ],
    "properties": {
      "company": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "name",
          "size",
          "id",
          "founded",
          "industry",
          "location",
          "pronet_url",
          "pronet_id",
          "social1_url",
          "social2_url",
          "website"
        ],
        "properties": {
          "name": {
            "$ref": "#/components/schemas/Str"
          },
          "size": {
            "$ref": "#/components/schemas/Str"
          },
          "id": {
            "$ref": "#/components/schemas/Str"
          },
          "founded": {
            "$ref": "#/components/schemas/Int"
          },
          "industry": {
            "$ref": "#/components/schemas/Str"
          },
          "location": {
            "$ref": "#/components/schemas/ExperienceLocation"
          },
          "pronet_url": {
            "$ref": "#/components/schemas/Str"
          },
          "pronet_id": {
            "$ref": "#/components/schemas/Str"
          },
          "social1_url": {
            "$ref": "#/components/schemas/Str"
          },
          "social2_url": {
            "$ref": "#/components/schemas/Str"
          },
          "website": {
            "$ref": "#/components/schemas/Str"
          }
        }
      },
      "location_names": {
        "$ref": "#/components/schemas/AnyList"
      },
      "start_date": {
        "$ref": "#/components/schemas/YearMonth"
      },
      "end_date": {
        "description": "null for a current position",
        "$ref": "#/components/schemas/YearMonth"
      },
      "title": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "name",
          "role",
          "sub_role",
          "levels"
        ],
        "properties": {
          "name": {
            "$ref": "#/components/schemas/Str"
          },
          "role": {
            "$ref": "#/components/schemas/Str"
          },
          "sub_role": {
            "$ref": "#/components/schemas/Unshown"
          },
          "levels": {
            "$ref": "#/components/schemas/AnyList"
          }
        }
      },
      "is_primary": {
        "$ref": "#/components/schemas/Bool"
      }
    }
  },
  "Organization": {
    "type": "object",
    "additionalProperties": false,
    "required": [
      "id",
      "name",
      "website_url",
      "blog_url",
      "startup_url",
      "pronet_url",
      "social2_url",
      "social1_url",
      "logo_url",
      "funding_url",
      "primary_phone",
      "languages",
      "traffic_ranking",
      "phone",
      "sanitized_phone",
      "pronet_uid",
      "founded_year",
      "publicly_traded_symbol",
      "publicly_traded_exchange",
      "primary_domain",
      "sic_codes",
      "naics_codes",
      "industry",
      "estimated_num_employees",
      "keywords",
      "organization_revenue_printed",
      "annual_revenue_printed",
      "organization_revenue",
      "annual_revenue",
      "industries",
      "secondary_industries",
      "snippets_loaded",
      "industry_tag_id",
      "industry_tag_hash",
      "retail_location_count",
      "raw_address",
      "street_address",
      "city",
      "state",
      "postal_code",
      "country",
      "owned_by_organization_id",
      "owned_by_organization",
      "short_description",
      "suborganizations",
      "num_suborganizations",
      "total_funding",
      "total_funding_printed",
      "latest_funding_round_date",
      "latest_funding_stage",
      "funding_events",
      "technology_names",
      "current_technologies",
      "org_chart_root_people_ids",
      "org_chart_sector",
      "org_chart_removed",
      "org_chart_show_department_filter",
      "organization_headcount_six_month_growth",
      "organization_headcount_twelve_month_growth",
      "organization_headcount_twenty_four_month_growth"
    ],
    "properties": {
      "id": {
        "$ref": "#/components/schemas/Str"
      },
      "name": {
        "$ref": "#/components/schemas/Str"
      },
      "website_url": {
        "$ref": "#/components/schemas/Str"
      },
      "blog_url": {
        "$ref": "#/components/schemas/Str"
      },
      "startup_url": {
        "$ref": "#/components/schemas/Str"
      },
      "pronet_url": {
        "$ref": "#/components/schemas/Str"
      },
      "social2_url": {
        "$ref": "#/components/schemas/Str"
      },
      "social1_url": {
        "$ref": "#/components/schemas/Str"
      },
      "logo_url": {
        "$ref": "#/components/schemas/Str"
      },
      "funding_url": {
        "$ref": "#/components/schemas/Unshown"
      },
      "primary_phone": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "number",
          "source",
          "sanitized_number"
        ],
        "properties": {
          "number": {
            "$ref": "#/components/schemas/Str"
          },
          "source": {
            "$ref": "#/components/schemas/Str"
          },
          "sanitized_number": {
            "$ref": "#/components/schemas/Str"
          }
        }
      },
      "languages": {
        "$ref": "#/components/schemas/Strings"
      },
      "traffic_ranking": {
        "$ref": "#/components/schemas/Unshown"
      },
      "phone": {
        "$ref": "#/components/schemas/Str"
      },
      "sanitized_phone": {
        "$ref": "#/components/schemas/Str"
      },
      "pronet_uid": {
        "$ref": "#/components/schemas/Str"
      },
      "founded_year": {
        "$ref": "#/components/schemas/Int"
      },
      "publicly_traded_symbol": {
        "$ref": "#/components/schemas/Unshown"
      },
      "publicly_traded_exchange": {
        "$ref": "#/components/schemas/Unshown"
      },
      "primary_domain": {
        "$ref": "#/components/schemas/Str"
      },
      "sic_codes": {
        "$ref": "#/components/schemas/Strings"
      },
      "naics_codes": {
        "$ref": "#/components/schemas/Strings"
      },
      "industry": {
        "$ref": "#/components/schemas/Str"
      },
      "estimated_num_employees": {
        "$ref": "#/components/schemas/Int"
      },
      "keywords": {
        "$ref": "#/components/schemas/Strings"
      },
      "organization_revenue_printed": {
        "$ref": "#/components/schemas/Str"
      },
      "annual_revenue_printed": {
        "$ref": "#/components/schemas/Str"
      },
      "organization_revenue": {
        "$ref": "#/components/schemas/Int"
      },
      "annual_revenue": {
        "$ref": "#/components/schemas/Int"
      },
      "industries": {
        "$ref": "#/components/schemas/Strings"
      },
      "secondary_industries": {
        "$ref": "#/components/schemas/Strings"
      },
      "snippets_loaded": {
        "$ref": "#/components/schemas/Bool"
      },
      "industry_tag_id": {
        "$ref": "#/components/schemas/Str"
      },
      "industry_tag_hash": {
        "type": "object",
        "additionalProperties": {
          "type": "string"
        }
      },
      "retail_location_count": {
        "$ref": "#/components/schemas/Int"
      },
      "raw_address": {
        "$ref": "#/components/schemas/Str"
      },
      "street_address": {
        "$ref": "#/components/schemas/Str"
      },
      "city": {
        "$ref": "#/components/schemas/Str"
      },
      "state": {
        "$ref": "#/components/schemas/Str"
      },
      "postal_code": {
        "$ref": "#/components/schemas/Str"
      },
      "country": {
        "$ref": "#/components/schemas/Str"
      },
      "owned_by_organization_id": {
        "$ref": "#/components/schemas/Str"
      },
      "owned_by_organization": {
        "type": "object",
        "additionalProperties": false,
        "required": [
          "id",
          "name",
          "website_url"
        ],
        "properties": {
          "id": {
            "$ref": "#/components/schemas/Str"
          },
          "name": {
            "$ref": "#/components/schemas/Str"
          },
          "website_url": {
            "$ref": "#/components/schemas/Str"
          }
        }
      },
      "short_description": {
        "$ref": "#/components/schemas/Str"
      },
      "suborganizations": {
        "$ref": "#/components/schemas/AnyList"
      },
      "num_suborganizations": {
        "$ref": "#/components/schemas/Int"
      },
      "total_funding": {
        "$ref": "#/components/schemas/Int"
      },
      "total_funding_printed": {
        "$ref": "#/components/schemas/Str"
      },
      "latest_funding_round_date": {
        "$ref": "#/components/schemas/Timestamp"
      },
      "latest_funding_stage": {
        "$ref": "#/components/schemas/Str"
      },
      "funding_events": {
        "type": "array",
        "items": {
          "type": "object",
          "additionalProperties": false,
          "required": [
            "id",
            "date",
            "news_url",
            "type",
            "investors",
            "amount",
            "currency"
          ],
          "properties": {
            "id": {
              "$ref": "#/components/schemas/Str"
            },
            "date": {
              "$ref": "#/components/schemas/Timestamp"
            },
            "news_url": {
              "$ref": "#/components/schemas/Str"
            },
            "type": {
              "$ref": "#/components/schemas/Str"
            },
            "investors": {
              "$ref": "#/components/schemas/Str"
            },
            "amount": {
              "$ref": "#/components/schemas/Str"
            },
            "currency": {
              "$ref": "#/components/schemas/Str"
            }
          }
        }
      },
      "technology_names": {
        "$ref": "#/components/schemas/Strings"
      },
      "current_technologies": {
        "type": "array",
        "items": {
          "type": "object",
          "additionalProperties": false,
          "required": [
            "uid",
            "name",
            "category"
          ],
          "properties": {
            "uid": {
              "$ref": "#/components/schemas/Str"
            },
            "name": {
              "$ref": "#/components/schemas/Str"
            },
            "category": {
              "$ref": "#/components/schemas/Str"
            }
          }
        }
      },
      "org_chart_root_people_ids": {
        "$ref": "#/components/schemas/Strings"
      },
      "org_chart_sector": {
        "$ref": "#/components/schemas/Str"
      },
      "org_chart_removed": {
        "$ref": "#/components/schemas/Bool"
      },
      "org_chart_show_department_filter": {
        "$ref": "#/components/schemas/Bool"
      },
      "organization_headcount_six_month_growth": {
        "$ref": "#/components/schemas/Unshown"
      },
      "organization_headcount_twelve_month_growth": {
        "$ref": "#/components/schemas/Unshown"
      },
      "organization_headcount_twenty_four_month_growth": {
        "$ref": "#/components/schemas/Unshown"
      }
    }
  }
};

// Word lists the synthetic demo people and companies are drawn from. All companies, domains and
// URLs are fictional (domains under the reserved `.example` TLD and example.com/net/org).

export const FEMALE_FIRST_NAMES = [
  'Olivia', 'Emma', 'Ava', 'Sophia', 'Isabella', 'Mia', 'Amelia', 'Harper', 'Evelyn', 'Abigail',
  'Emily', 'Elizabeth', 'Sofia', 'Avery', 'Ella', 'Scarlett', 'Grace', 'Chloe', 'Victoria', 'Riley',
  'Aria', 'Lily', 'Aubrey', 'Zoey', 'Hannah', 'Layla', 'Nora', 'Priya', 'Mei', 'Aisha',
  'Lucia', 'Camila', 'Fatima', 'Ingrid', 'Keiko', 'Naomi', 'Rachel', 'Sarah', 'Julia', 'Claire',
] as const;

export const MALE_FIRST_NAMES = [
  'Liam', 'Noah', 'William', 'James', 'Oliver', 'Benjamin', 'Elijah', 'Lucas', 'Mason', 'Logan',
  'Alexander', 'Ethan', 'Jacob', 'Michael', 'Daniel', 'Henry', 'Jackson', 'Sebastian', 'Aiden', 'Matthew',
  'Samuel', 'David', 'Joseph', 'Carter', 'Owen', 'Wyatt', 'John', 'Rahul', 'Wei', 'Omar',
  'Mateo', 'Diego', 'Kenji', 'Lars', 'Tariq', 'Andre', 'Marcus', 'Nathan', 'Paul', 'Thomas',
] as const;

export const LAST_NAMES = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Garcia', 'Miller', 'Davis', 'Rodriguez', 'Martinez',
  'Hernandez', 'Lopez', 'Gonzalez', 'Wilson', 'Anderson', 'Thomas', 'Taylor', 'Moore', 'Jackson', 'Martin',
  'Lee', 'Perez', 'Thompson', 'White', 'Harris', 'Sanchez', 'Clark', 'Ramirez', 'Lewis', 'Robinson',
  'Walker', 'Young', 'Allen', 'King', 'Wright', 'Scott', 'Torres', 'Nguyen', 'Hill', 'Flores',
  'Green', 'Adams', 'Nelson', 'Baker', 'Hall', 'Rivera', 'Campbell', 'Mitchell', 'Carter', 'Roberts',
  'Patel', 'Shah', 'Kim', 'Park', 'Chen', 'Wang', 'Tanaka', 'Sato', 'Müller', "O'Brien",
  'Murphy', 'Kelly', 'Sullivan', 'Bennett', 'Brooks', 'Foster', 'Hughes', 'Price', 'Reed', 'Ward',
  'Coleman', 'Jenkins', 'Perry', 'Powell', 'Long', 'Hayes', 'Russell', 'Griffin', 'Diaz', 'Ortiz',
] as const;

export interface City {
  city: string;
  state: string;
  stateCode: string;
  /** Latitude and longitude of the city centre, four decimals. */
  geo: string;
  areaCode: string;
  postalCode: string;
}

const cityRows: [string, string, string, string, string, string][] = [
  ['San Francisco', 'California', 'CA', '37.7749,-122.4194', '415', '94105'],
  ['New York', 'New York', 'NY', '40.7128,-74.0060', '212', '10001'],
  ['Austin', 'Texas', 'TX', '30.2672,-97.7431', '512', '78701'],
  ['Seattle', 'Washington', 'WA', '47.6062,-122.3321', '206', '98101'],
  ['Boston', 'Massachusetts', 'MA', '42.3601,-71.0589', '617', '02108'],
  ['Chicago', 'Illinois', 'IL', '41.8781,-87.6298', '312', '60601'],
  ['Denver', 'Colorado', 'CO', '39.7392,-104.9903', '303', '80202'],
  ['Atlanta', 'Georgia', 'GA', '33.7490,-84.3880', '404', '30303'],
  ['Los Angeles', 'California', 'CA', '34.0522,-118.2437', '213', '90012'],
  ['San Diego', 'California', 'CA', '32.7157,-117.1611', '619', '92101'],
  ['San Jose', 'California', 'CA', '37.3382,-121.8863', '408', '95113'],
  ['Portland', 'Oregon', 'OR', '45.5152,-122.6784', '503', '97204'],
  ['Miami', 'Florida', 'FL', '25.7617,-80.1918', '305', '33130'],
  ['Raleigh', 'North Carolina', 'NC', '35.7796,-78.6382', '919', '27601'],
  ['Salt Lake City', 'Utah', 'UT', '40.7608,-111.8910', '801', '84101'],
  ['Minneapolis', 'Minnesota', 'MN', '44.9778,-93.2650', '612', '55401'],
  ['Philadelphia', 'Pennsylvania', 'PA', '39.9526,-75.1652', '215', '19103'],
  ['Washington', 'District of Columbia', 'DC', '38.9072,-77.0369', '202', '20001'],
  ['Dallas', 'Texas', 'TX', '32.7767,-96.7970', '214', '75201'],
  ['Houston', 'Texas', 'TX', '29.7604,-95.3698', '713', '77002'],
  ['Phoenix', 'Arizona', 'AZ', '33.4484,-112.0740', '602', '85004'],
  ['Nashville', 'Tennessee', 'TN', '36.1627,-86.7816', '615', '37203'],
  ['Pittsburgh', 'Pennsylvania', 'PA', '40.4406,-79.9959', '412', '15222'],
  ['Columbus', 'Ohio', 'OH', '39.9612,-82.9988', '614', '43215'],
  ['Detroit', 'Michigan', 'MI', '42.3314,-83.0458', '313', '48226'],
  ['Kansas City', 'Missouri', 'MO', '39.0997,-94.5786', '816', '64105'],
  ['Charlotte', 'North Carolina', 'NC', '35.2271,-80.8431', '704', '28202'],
  ['Boulder', 'Colorado', 'CO', '40.0150,-105.2705', '303', '80302'],
  ['Madison', 'Wisconsin', 'WI', '43.0731,-89.4012', '608', '53703'],
  ['Baltimore', 'Maryland', 'MD', '39.2904,-76.6122', '410', '21202'],
];
export const CITIES: readonly City[] = cityRows.map(([city, state, stateCode, geo, areaCode, postalCode]) => ({ city, state, stateCode, geo, areaCode, postalCode }));

/** US area codes for personal phone numbers; each gives 100 numbers in 555-0100..0199 (reserved for fiction) and more beyond. */
export const AREA_CODES = `201 202 203 205 206 207 208 209 210 212 213 214 215 216 217 218 219 224 225 228 229 231 234 239 240
248 251 252 253 254 256 260 262 267 269 270 276 281 301 302 303 304 305 307 308 309 310 312 313 314 315 316 317 318 319 320
321 323 325 330 334 336 337 339 347 351 352 360 361 386 401 402 404 405 406 407 408 409 410 412 413 414 415 417 419 423 424
425 430 432 434 435 440 443 469 470 475 478 479 480 484 501 502 503 504 505 507 508 509 510 512 513 515 516 517 518 520 530
540 541 551 559 561 562 563 567 570 571 573 574 575 580 585 586 601 602 603 605 606 607 608 609 610 612 614 615 616 617 618
619 620 623 626 630 631 636 641 646 650 651 660 661 662 678 682 701 702 703 704 706 707 708 712 713 714 715 716 717 718 719
720 724 727 731 732 734 740 754 757 760 763 765 770 772 773 774 775 781 785 786 801 802 803 804 805 806 808 810 812 813 814
815 816 817 818 828 830 831 832 843 845 847 848 850 856 857 858 859 860 862 863 864 865 870 878 901 903 904 906 907 908 909
910 912 913 914 915 916 917 918 919 920 925 928 931 936 937 940 941 947 949 951 952 954 956 970 971 972 973 978 979 980 985 989`
  .split(/\s+/)
  .filter(Boolean);

export const COMPANY_PREFIXES = [
  'Northwind', 'Bluefin', 'Cedar', 'Summit', 'Brightpath', 'Ironwood', 'Lumen', 'Harbor', 'Redwood', 'Silverline',
  'Quantum', 'Evergreen', 'Falcon', 'Granite', 'Helix', 'Juniper', 'Keystone', 'Lakeshore', 'Meridian', 'Nimbus',
  'Orchard', 'Pinnacle', 'Quarry', 'Riverstone', 'Sequoia', 'Tidewater', 'Upland', 'Vantage', 'Willow', 'Zephyr',
  'Aurora', 'Beacon', 'Cobalt', 'Driftwood', 'Ember', 'Fjord', 'Glacier', 'Horizon', 'Indigo', 'Jasper',
] as const;

export interface Sector {
  suffix: string;
  industry: string;
  secondaryIndustries: string[];
  sicCode: string;
  naicsCode: string;
  keywords: string[];
  /** Completes "<Company> …" into a one-line description. */
  does: string;
}

export const SECTORS: readonly Sector[] = [
  { suffix: 'Analytics', industry: 'information technology & services', secondaryIndustries: ['computer software'], sicCode: '7374', naicsCode: '518210', keywords: ['analytics', 'business intelligence', 'dashboards', 'saas'], does: 'turns product and revenue data into dashboards teams act on' },
  { suffix: 'Software', industry: 'computer software', secondaryIndustries: ['internet'], sicCode: '7372', naicsCode: '511210', keywords: ['saas', 'b2b', 'workflow automation', 'api'], does: 'builds workflow software for mid-market operations teams' },
  { suffix: 'Health', industry: 'hospital & health care', secondaryIndustries: ['health, wellness & fitness'], sicCode: '8099', naicsCode: '621999', keywords: ['digital health', 'telemedicine', 'patient engagement'], does: 'connects patients and clinics through virtual care' },
  { suffix: 'Financial', industry: 'financial services', secondaryIndustries: ['banking'], sicCode: '6199', naicsCode: '522320', keywords: ['fintech', 'payments', 'lending', 'compliance'], does: 'offers payment and lending infrastructure to small businesses' },
  { suffix: 'Logistics', industry: 'logistics & supply chain', secondaryIndustries: ['transportation/trucking/railroad'], sicCode: '4731', naicsCode: '488510', keywords: ['freight', 'supply chain', 'fleet management'], does: 'moves freight for regional retailers with a digital brokerage' },
  { suffix: 'Robotics', industry: 'industrial automation', secondaryIndustries: ['machinery'], sicCode: '3569', naicsCode: '333249', keywords: ['robotics', 'automation', 'manufacturing'], does: 'designs warehouse robots and the software that runs them' },
  { suffix: 'Marketing', industry: 'marketing & advertising', secondaryIndustries: ['online media'], sicCode: '8742', naicsCode: '541613', keywords: ['demand generation', 'content marketing', 'seo'], does: 'runs demand-generation programs for B2B software companies' },
  { suffix: 'Security', industry: 'computer & network security', secondaryIndustries: ['information technology & services'], sicCode: '7373', naicsCode: '541512', keywords: ['cybersecurity', 'identity', 'zero trust', 'soc 2'], does: 'protects company networks with managed detection and response' },
  { suffix: 'Energy', industry: 'renewables & environment', secondaryIndustries: ['utilities'], sicCode: '4911', naicsCode: '221114', keywords: ['solar', 'energy storage', 'clean energy'], does: 'develops community solar and battery storage projects' },
  { suffix: 'Learning', industry: 'e-learning', secondaryIndustries: ['education management'], sicCode: '8299', naicsCode: '611710', keywords: ['edtech', 'online courses', 'corporate training'], does: 'trains frontline employees with short mobile courses' },
  { suffix: 'Retail', industry: 'retail', secondaryIndustries: ['consumer goods'], sicCode: '5961', naicsCode: '454110', keywords: ['ecommerce', 'direct to consumer', 'subscriptions'], does: 'sells home goods direct to consumers online' },
  { suffix: 'Labs', industry: 'biotechnology', secondaryIndustries: ['research'], sicCode: '8731', naicsCode: '541714', keywords: ['biotech', 'diagnostics', 'life sciences'], does: 'develops rapid diagnostic tests for clinics' },
  { suffix: 'Cloud', industry: 'internet', secondaryIndustries: ['computer software'], sicCode: '7374', naicsCode: '518210', keywords: ['cloud infrastructure', 'devops', 'kubernetes'], does: 'hosts and scales web applications for engineering teams' },
  { suffix: 'Media', industry: 'media production', secondaryIndustries: ['entertainment'], sicCode: '7812', naicsCode: '512110', keywords: ['video production', 'podcasts', 'branded content'], does: 'produces video and podcast series for brands' },
  { suffix: 'Partners', industry: 'management consulting', secondaryIndustries: ['professional training & coaching'], sicCode: '8742', naicsCode: '541611', keywords: ['consulting', 'strategy', 'operations'], does: 'advises growth-stage companies on go-to-market strategy' },
];

export const COMPANY_SIZES = [
  { label: '1-10', min: 2, max: 10, revenue: '$0-$1M', revenueMin: 100_000, revenueMax: 1_000_000 },
  { label: '11-50', min: 11, max: 50, revenue: '$1M-$10M', revenueMin: 1_000_000, revenueMax: 10_000_000 },
  { label: '51-200', min: 51, max: 200, revenue: '$10M-$50M', revenueMin: 10_000_000, revenueMax: 50_000_000 },
  { label: '201-500', min: 201, max: 500, revenue: '$50M-$100M', revenueMin: 50_000_000, revenueMax: 100_000_000 },
  { label: '501-1000', min: 501, max: 1000, revenue: '$100M-$250M', revenueMin: 100_000_000, revenueMax: 250_000_000 },
  { label: '1001-5000', min: 1001, max: 5000, revenue: '$250M-$1B', revenueMin: 250_000_000, revenueMax: 1_000_000_000 },
  { label: '5001-10000', min: 5001, max: 10000, revenue: '$1B-$10B', revenueMin: 1_000_000_000, revenueMax: 10_000_000_000 },
] as const;

export const FUNDING_STAGES = ['Seed', 'Series A', 'Series B', 'Series C', 'Series D'] as const;
export const INVESTORS = ['Sandhill Partners', 'Blue Harbor Ventures', 'Granite Capital', 'North Star Ventures', 'Foundry Square Capital', 'Redline Growth', 'Lattice Ventures', 'Cascade Fund'] as const;

export const TECHNOLOGIES = [
  { uid: 'salesforce', name: 'Salesforce', category: 'CRM' },
  { uid: 'hubspot', name: 'HubSpot', category: 'Marketing Automation' },
  { uid: 'google_analytics', name: 'Google Analytics', category: 'Analytics and Tracking' },
  { uid: 'amazon_aws', name: 'Amazon AWS', category: 'Hosting' },
  { uid: 'slack', name: 'Slack', category: 'Communication' },
  { uid: 'zendesk', name: 'Zendesk', category: 'Customer Support' },
  { uid: 'stripe', name: 'Stripe', category: 'Payments' },
  { uid: 'segment', name: 'Segment', category: 'Customer Data Platform' },
  { uid: 'react', name: 'React', category: 'JavaScript Libraries' },
  { uid: 'wordpress', name: 'WordPress', category: 'CMS' },
  { uid: 'google_workspace', name: 'Google Workspace', category: 'Email Providers' },
  { uid: 'intercom', name: 'Intercom', category: 'Live Chat' },
  { uid: 'jira', name: 'Jira', category: 'Project Management' },
  { uid: 'datadog', name: 'Datadog', category: 'Monitoring' },
  { uid: 'snowflake', name: 'Snowflake', category: 'Data Warehouse' },
  { uid: 'okta', name: 'Okta', category: 'Identity Management' },
] as const;

export const SENIORITIES = [
  { seniority: 'entry', weight: 20, incomeRange: '$50k-$75k', netWorth: '$25k-$50k' },
  { seniority: 'senior', weight: 30, incomeRange: '$100k-$150k', netWorth: '$100k-$250k' },
  { seniority: 'manager', weight: 22, incomeRange: '$125k-$175k', netWorth: '$250k-$500k' },
  { seniority: 'director', weight: 15, incomeRange: '$150k-$250k', netWorth: '$500k-$1M' },
  { seniority: 'vp', weight: 9, incomeRange: '$200k-$300k', netWorth: '$1M-$2.5M' },
  { seniority: 'c_suite', weight: 4, incomeRange: '$250k+', netWorth: '$2.5M+' },
] as const;

export type Seniority = (typeof SENIORITIES)[number]['seniority'];

export interface Role {
  role: string;
  department: string;
  subdepartment: string;
  titles: Record<Seniority, string>;
  skills: string[];
}

export const ROLES: readonly Role[] = [
  { role: 'engineering', department: 'engineering_technical', subdepartment: 'software_development', titles: { entry: 'Software Engineer', senior: 'Senior Software Engineer', manager: 'Engineering Manager', director: 'Director of Engineering', vp: 'VP of Engineering', c_suite: 'Chief Technology Officer' }, skills: ['typescript', 'distributed systems', 'postgresql', 'kubernetes', 'system design', 'code review'] },
  { role: 'sales', department: 'sales', subdepartment: 'account_management', titles: { entry: 'Sales Development Representative', senior: 'Senior Account Executive', manager: 'Sales Manager', director: 'Director of Sales', vp: 'VP of Sales', c_suite: 'Chief Revenue Officer' }, skills: ['b2b sales', 'negotiation', 'salesforce', 'pipeline management', 'prospecting', 'forecasting'] },
  { role: 'marketing', department: 'marketing', subdepartment: 'demand_generation', titles: { entry: 'Marketing Coordinator', senior: 'Senior Marketing Manager', manager: 'Demand Generation Manager', director: 'Director of Marketing', vp: 'VP of Marketing', c_suite: 'Chief Marketing Officer' }, skills: ['demand generation', 'seo', 'content strategy', 'marketing automation', 'analytics', 'brand'] },
  { role: 'product', department: 'product_management', subdepartment: 'product_management', titles: { entry: 'Associate Product Manager', senior: 'Senior Product Manager', manager: 'Group Product Manager', director: 'Director of Product', vp: 'VP of Product', c_suite: 'Chief Product Officer' }, skills: ['product strategy', 'user research', 'roadmapping', 'a/b testing', 'sql', 'agile'] },
  { role: 'finance', department: 'finance', subdepartment: 'financial_planning', titles: { entry: 'Financial Analyst', senior: 'Senior Financial Analyst', manager: 'Finance Manager', director: 'Director of Finance', vp: 'VP of Finance', c_suite: 'Chief Financial Officer' }, skills: ['financial modeling', 'fp&a', 'excel', 'budgeting', 'accounting', 'forecasting'] },
  { role: 'operations', department: 'operations', subdepartment: 'business_operations', titles: { entry: 'Operations Associate', senior: 'Senior Operations Analyst', manager: 'Operations Manager', director: 'Director of Operations', vp: 'VP of Operations', c_suite: 'Chief Operating Officer' }, skills: ['process improvement', 'project management', 'vendor management', 'sql', 'lean', 'reporting'] },
  { role: 'human_resources', department: 'human_resources', subdepartment: 'recruiting', titles: { entry: 'Recruiting Coordinator', senior: 'Senior Recruiter', manager: 'Talent Acquisition Manager', director: 'Director of People', vp: 'VP of People', c_suite: 'Chief People Officer' }, skills: ['recruiting', 'employer branding', 'onboarding', 'compensation', 'hris', 'coaching'] },
  { role: 'customer_success', department: 'support', subdepartment: 'customer_success', titles: { entry: 'Customer Success Associate', senior: 'Senior Customer Success Manager', manager: 'Customer Success Manager', director: 'Director of Customer Success', vp: 'VP of Customer Success', c_suite: 'Chief Customer Officer' }, skills: ['customer onboarding', 'account management', 'renewals', 'zendesk', 'churn reduction', 'training'] },
  { role: 'design', department: 'design', subdepartment: 'product_design', titles: { entry: 'Product Designer', senior: 'Senior Product Designer', manager: 'Design Manager', director: 'Director of Design', vp: 'VP of Design', c_suite: 'Chief Design Officer' }, skills: ['figma', 'interaction design', 'prototyping', 'design systems', 'user research', 'accessibility'] },
  { role: 'data', department: 'engineering_technical', subdepartment: 'data_science', titles: { entry: 'Data Analyst', senior: 'Senior Data Scientist', manager: 'Data Science Manager', director: 'Director of Data', vp: 'VP of Data', c_suite: 'Chief Data Officer' }, skills: ['python', 'machine learning', 'sql', 'statistics', 'dbt', 'data visualization'] },
];

export const INTERESTS = [
  'hiking', 'cycling', 'photography', 'cooking', 'travel', 'running', 'reading', 'chess', 'gardening', 'podcasts',
  'live music', 'yoga', 'rock climbing', 'sailing', 'board games', 'volunteering', 'skiing', 'woodworking', 'film', 'coffee',
] as const;

export const STREET_NAMES = ['Maple', 'Oak', 'Cedar', 'Pine', 'Elm', 'Lake', 'Hill', 'Park', 'Main', 'Sunset', 'Highland', 'Market', 'Spring', 'Chestnut', 'Willow'] as const;
export const STREET_TYPES = ['St', 'Ave', 'Blvd', 'Rd', 'Ln', 'Dr', 'Way'] as const;
export const PERSONAL_EMAIL_DOMAINS = ['example.com', 'example.net', 'example.org'] as const;

// The resolver service's API schemas and typed client are added by its own work item.
export {};

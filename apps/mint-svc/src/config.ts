import type { z } from 'zod';
import { baseConfigSchema } from '@nrp/server';

export const configSchema = baseConfigSchema(3002);

export type Config = z.output<typeof configSchema>;
